import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Synchronization

/// A test client that checks every answer against the published OpenAPI document (gateway/Resources/openapi.json):
/// the operation, the status and, for JSON, the body's schema. Every test that goes through the gateway, and every
/// service's router tests, thereby also test the document, so it cannot drift from what the services send.
public final class ContractCheckingClient: TestClientProtocol {
    public static let contract: OpenAPIContract = {
        do { return try OpenAPIContract.repository() } catch { fatalError("cannot read the OpenAPI document: \(error)") }
    }()

    private let client: any TestClientProtocol
    private let found = Mutex<[String]>([])

    public init(_ client: any TestClientProtocol) {
        self.client = client
    }

    public var port: Int? { client.port }

    /// Every mismatch seen so far.
    public var problems: [String] { found.withLock { $0 } }

    public func executeRequest(uri: String, method: HTTPRequest.Method, headers: HTTPFields, body: ByteBuffer?) async throws -> TestResponse {
        let response = try await client.executeRequest(uri: uri, method: method, headers: headers, body: body)
        let path = String(uri.prefix { $0 != "?" })
        // Paths no route serves are the gateway's plain 404, not part of the API.
        if response.status == .notFound, Self.contract.operation(method: method.rawValue, path: path) == nil { return response }
        let problems = Self.contract.problems(
            method: method.rawValue, path: path, status: Int(response.status.code), contentType: response.headers[.contentType],
            body: Data(buffer: response.body))
        let headerProblems = response.headers.flatMap { IdSpelling.problems(in: $0.value, at: "\(method) \(path): header \($0.name)") }
        if !(problems + headerProblems).isEmpty { found.withLock { $0 += problems + headerProblems } }
        return response
    }
}

extension ContractCheckingClient {
    /// Runs `body` with `client` wrapped in a checking client; answers every mismatch it saw.
    public static func problems(
        of client: any TestClientProtocol, _ body: @Sendable (any TestClientProtocol) async throws -> Void
    ) async throws -> [String] {
        let checked = ContractCheckingClient(client)
        try await body(checked)
        return checked.problems
    }
}

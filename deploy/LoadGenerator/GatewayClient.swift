import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// One HTTP call to the gateway, named by its route template (`GET /api/meals/:id`) for the report.
struct Call: Sendable {
    var method: HTTPMethod
    var path: String
    var template: String
    var body: Data? = nil
    var token: String? = nil
    var ifMatch: String? = nil

    init(_ method: HTTPMethod, _ path: String, template: String? = nil, json body: [String: any Sendable]? = nil, token: String? = nil) {
        self.method = method
        self.path = path
        self.template = "\(method.rawValue) \(template ?? path.split(separator: "?").first.map(String.init) ?? path)"
        self.body = body.map { try! JSONSerialization.data(withJSONObject: $0) }
        self.token = token
    }
}

/// The answer to a `Call`: status 0 when no answer came (connection error or timeout), with the reason in `body`.
struct Answer: Sendable {
    var status: Int
    var body: Data

    var isSuccess: Bool { (200..<300).contains(status) }

    /// The body decoded as `T`, nil when it is not one.
    func decoded<T: Decodable>(_ type: T.Type) -> T? { try? JSONDecoder().decode(T.self, from: body) }

    /// The first bytes of the body as text, for error reports.
    var excerpt: String { String(decoding: body.prefix(300), as: UTF8.self).replacingOccurrences(of: "\n", with: " ") }
}

/// Sends calls to the gateway over one pooled client and times each from send to the last byte of the answer.
struct GatewayClient: Sendable {
    let http: HTTPClient
    let baseURL: String
    let timeout: TimeAmount

    /// A client whose pool holds a connection per request in flight (`connections`), as that many phones would.
    static func make(baseURL: String, connections: Int, timeout: Double) -> GatewayClient {
        var configuration = HTTPClient.Configuration()
        configuration.timeout = .init(connect: .seconds(5), read: .milliseconds(Int64(timeout * 1000)))
        configuration.connectionPool = .init(idleTimeout: .seconds(120), concurrentHTTP1ConnectionsPerHostSoftLimit: connections)
        configuration.redirectConfiguration = .disallow
        configuration.decompression = .disabled
        let trimmed = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        return GatewayClient(
            http: HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration), baseURL: trimmed,
            timeout: .milliseconds(Int64(timeout * 1000)))
    }

    /// Sends `call`; when a recorder is given and the call starts inside its window, its latency and status are recorded.
    @discardableResult
    func send(_ call: Call, recorder: Recorder? = nil) async -> Answer {
        var request = HTTPClientRequest(url: baseURL + call.path)
        request.method = call.method
        request.headers.add(name: "Accept", value: "application/json")
        if let token = call.token { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
        if let ifMatch = call.ifMatch { request.headers.add(name: "If-Match", value: ifMatch) }
        if let body = call.body {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(bytes: body))
        }
        let started = ContinuousClock.now
        let answer: Answer
        do {
            let response = try await http.execute(request, timeout: timeout)
            let bytes = try await response.body.collect(upTo: 16 << 20)
            answer = Answer(status: Int(response.status.code), body: Data(bytes.readableBytesView))
        } catch {
            answer = Answer(status: 0, body: Data("\(error)".utf8))
        }
        recorder?.record(call.template, answer: answer, started: started, finished: .now)
        return answer
    }

    func shutdown() async throws { try await http.shutdown() }
}

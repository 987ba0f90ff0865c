import Foundation
import Hummingbird
import NIOCore
import ServiceDefaults

/// `GET /openapi.json`: the OpenAPI 3.1 document of the public API, kept in the repository at
/// gateway/Resources/openapi.json and bundled with the gateway, so what it serves is what it was built with.
struct APIDocumentController: Sendable {
    let document: ByteBuffer
    /// A strong validator of the document's bytes (`ContentETag`), for `If-None-Match`.
    let etag: String
    /// The methods it declares per path.
    let declaredMethods: DeclaredMethods

    init(document: [UInt8]) throws {
        self.document = ByteBuffer(bytes: document)
        self.etag = ContentETag.of(document)
        self.declaredMethods = try DeclaredMethods(openAPIDocument: document)
    }

    /// The document bundled with the gateway.
    static func bundled() throws -> APIDocumentController {
        guard let url = Bundle.module.url(forResource: "openapi", withExtension: "json") else {
            throw APIDocumentMissing()
        }
        return try APIDocumentController(document: Array(try Data(contentsOf: url)))
    }

    func addRoutes<Context: RequestContext>(to router: Router<Context>) {
        router.get("/openapi.json") { request, _ in answer(request) }
    }

    func answer(_ request: Request) -> Response {
        var headers: HTTPFields = [.eTag: etag, .cacheControl: "public, max-age=300"]
        if request.hasCurrentCopy(etag: etag) {
            return Response(status: .notModified, headers: headers)
        }
        headers[.contentType] = "application/json; charset=utf-8"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: document))
    }
}

struct APIDocumentMissing: Error, CustomStringConvertible {
    var description: String { "the OpenAPI document is missing from the gateway's bundle (gateway/Resources/openapi.json)" }
}

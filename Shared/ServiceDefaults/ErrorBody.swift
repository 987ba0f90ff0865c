import Foundation
import Hummingbird
import WireJSON

/// The one error shape of the platform: `{"error": {"code", "message", "details", "requestId"}}`.
public struct ErrorBody: Codable, Sendable, Equatable {
    /// The inner object.
    public struct Payload: Codable, Sendable, Equatable {
        public var code: String
        public var message: String
        public var details: [String: String]
        public var requestId: String
    }

    public var error: Payload

    public init(code: String, message: String, details: [String: String] = [:], requestId: String) {
        self.error = Payload(code: code, message: message, details: details, requestId: requestId)
    }

    /// Renders the body as a JSON response with `status` and any extra headers.
    public func response(status: HTTPResponse.Status, headers extra: HTTPFields = [:]) -> Response {
        let data = jsonBytes()
        var headers: HTTPFields = [.contentType: "application/json; charset=utf-8"]
        headers.append(contentsOf: extra)
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// The body as JSON with sorted keys, as every error answer carries it.
    public func jsonBytes() -> Data {
        let encoder = WireJSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return (try? encoder.encode(self)) ?? Data(#"{"error":{"code":"internal_error"}}"#.utf8)
    }
}

import Foundation
import Hummingbird

extension Request {
    /// Decodes a JSON body strictly (`StrictJSONDecoder`): 415 for another content type, 400 `malformed_body` for bytes
    /// that are not JSON, 422 `validation_failed` or `unknown_field` naming every field that is wrong; the decoder's own
    /// text never reaches the client. The body is read up to `limit` bytes (the context's upload limit by default); a
    /// longer one is 413.
    public func decodeJSON<Value: Decodable>(as type: Value.Type, context: some RequestContext, upTo limit: Int? = nil) async throws -> Value {
        if let contentType = headers[.contentType], !contentType.lowercased().hasPrefix("application/json") {
            throw APIError(.unsupportedMediaType, code: "unsupported_media_type", message: "Send the body as application/json.")
        }
        let body = try await self.body.collect(upTo: limit ?? context.maxUploadSize)
        if Self.containsEscapedNUL(body.readableBytesView) {
            // PostgreSQL text cannot hold U+0000; refuse it here rather than fail in the database.
            throw APIError(
                .unprocessableContent, code: "validation_failed", message: "Text may not contain the NUL character.",
                details: ["body": "must not contain \\u0000"])
        }
        return try StrictJSONDecoder.decode(Value.self, from: Data(buffer: body))
    }

    /// Like `decodeJSON`, but a request without a body (no length and no type, or length 0) gives `empty`.
    public func decodeOptionalJSON<Value: Decodable>(as type: Value.Type, empty: Value, context: some RequestContext) async throws -> Value {
        if headers[.contentLength] == "0" || headers[.contentType] == nil && headers[.contentLength] == nil { return empty }
        return try await decodeJSON(as: type, context: context)
    }

    /// Whether JSON text holds the escape `\u0000` (the only way valid JSON carries U+0000), not itself escaped.
    static func containsEscapedNUL<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> Bool {
        let backslash = UInt8(ascii: "\\"), zero = UInt8(ascii: "0")
        var precedingBackslashes = 0
        var index = bytes.startIndex
        while index != bytes.endIndex {
            let byte = bytes[index]
            if byte == backslash {
                precedingBackslashes += 1
            } else {
                if byte == UInt8(ascii: "u") && precedingBackslashes % 2 == 1 {
                    let digits = bytes[bytes.index(after: index)...].prefix(4)
                    if digits.count == 4 && digits.allSatisfy({ $0 == zero }) { return true }
                }
                precedingBackslashes = 0
            }
            index = bytes.index(after: index)
        }
        return false
    }
}

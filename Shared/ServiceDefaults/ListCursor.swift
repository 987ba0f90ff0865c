import Foundation

/// Opaque list cursors: base64url of the last row's sort key and id, so a page continues after that row.
public enum ListCursor {
    /// The cursor after a row sorted by `key` then `id`.
    public static func encode(key: String, id: UUID) -> String {
        Base64URL.encode(Data("\(key)|\(id.uuidString.lowercased())".utf8))
    }

    /// The key and id a client sent back; 400 `invalid_cursor` for anything this API did not make.
    public static func decode(_ text: String) throws -> (key: String, id: UUID) {
        guard text.count <= 400, let data = Base64URL.decode(text), let plain = String(data: data, encoding: .utf8),
            let separator = plain.lastIndex(of: "|"), let id = UUID(uuidString: String(plain[plain.index(after: separator)...]))
        else { throw invalid }
        return (String(plain[..<separator]), id)
    }

    /// The cursor after a row sorted by `time` (microseconds) then `id`.
    public static func encode(time: Date, id: UUID) -> String {
        encode(key: String(Int64((time.timeIntervalSince1970 * 1_000_000).rounded())), id: id)
    }

    /// A cursor made by `encode(time:id:)`.
    public static func decodeTime(_ text: String) throws -> (time: Date, id: UUID) {
        let (key, id) = try decode(text)
        guard let micros = Int64(key) else { throw invalid }
        return (Date(timeIntervalSince1970: Double(micros) / 1_000_000), id)
    }

    /// 400 for a cursor this API did not make.
    public static let invalid = APIError.badRequest("The cursor is not one this API returned.", code: "invalid_cursor")
}

import Foundation
import ServiceDefaults

/// Opaque list cursors: base64url of the last row's sort key and id.
enum PageCursor {
    /// The cursor after a row sorted by `key` then `id`.
    static func encode(key: String, id: UUID) -> String {
        Base64URL.encode(Data("\(key)|\(id.uuidString.lowercased())".utf8))
    }

    /// The key and id a client sent back; 400 `invalid_cursor` for anything this service did not make.
    static func decode(_ text: String) throws -> (key: String, id: UUID) {
        guard text.count <= 400, let data = Base64URL.decode(text), let plain = String(data: data, encoding: .utf8),
            let separator = plain.lastIndex(of: "|"), let id = UUID(uuidString: String(plain[plain.index(after: separator)...]))
        else { throw invalid }
        return (String(plain[..<separator]), id)
    }

    /// The cursor after a meal of the list (newest first by time eaten).
    static func encode(_ cursor: MealCursor) -> String {
        encode(key: String(Int64((cursor.eatenAt.timeIntervalSince1970 * 1_000_000).rounded())), id: cursor.id)
    }

    /// A meal-list cursor.
    static func decodeMealCursor(_ text: String) throws -> MealCursor {
        let (key, id) = try decode(text)
        guard let micros = Int64(key) else { throw invalid }
        return MealCursor(eatenAt: Date(timeIntervalSince1970: Double(micros) / 1_000_000), id: id)
    }

    private static let invalid = APIError.badRequest("The cursor is not one this API returned.", code: "invalid_cursor")
}

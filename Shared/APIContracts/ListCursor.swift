import Foundation
import WireJSON

/// Opaque list cursors: base64url of the last row's sort key and id, so a page continues after that row.
public enum ListCursor {
    /// The cursor after a row sorted by `key` then `id`.
    public static func encode(key: String, id: UUID) -> String {
        Base64URL.encode(Data("\(key)|\(id.lowercasedString)".utf8))
    }

    /// The key and id a client sent back; 422 `invalid_cursor` for anything this API did not make.
    public static func decode(_ text: String) throws -> (key: String, id: UUID) {
        guard text.count <= 400, let data = Base64URL.decode(text), let plain = String(data: data, encoding: .utf8),
            !plain.contains("\u{0}"), let separator = plain.lastIndex(of: "|"),
            let id = UUID(uuidString: String(plain[plain.index(after: separator)...]))
        else { throw invalid }
        return (String(plain[..<separator]), id)
    }

    /// The cursor after a row sorted by the timestamp `time` (as read from PostgreSQL, whole microseconds) then `id`.
    public static func encode(time: Date, id: UUID) -> String {
        encode(key: String(Int64((time.timeIntervalSince1970 * 1_000_000).rounded())), id: id)
    }

    /// A cursor made by `encode(time:id:)`: the time in microseconds since 1970, kept as an integer because a `Date`
    /// bound to a query can land a microsecond off (postgres-nio truncates), which would skip rows sharing that time.
    /// Compare it in SQL as `'epoch'::timestamptz + micros * interval '1 microsecond'`.
    public static func decodeTime(_ text: String) throws -> (micros: Int64, id: UUID) {
        let (key, id) = try decode(text)
        guard let micros = Int64(key), validMicros.contains(micros) else { throw invalid }
        return (micros, id)
    }

    /// Years 1 to 9999: anything outside was not made here, and would overflow PostgreSQL's timestamp arithmetic.
    static let validMicros: ClosedRange<Int64> = -62_135_596_800_000_000...253_402_300_799_999_999

    /// 422 for a cursor this API did not make (a query value that is wrong, as a body's field would be).
    public static let invalid = APIError(
        .unprocessableContent, code: "invalid_cursor", message: "The cursor is not one this API returned.",
        details: ["cursor": "is not a cursor this API returned"])
}

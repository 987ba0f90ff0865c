import Foundation
import Hummingbird

extension Request {
    /// Whether the client's `If-None-Match` names `etag` (a quoted tag) or is `*`: its copy is current and the
    /// answer is 304. Weak comparison, as RFC 9110 section 13.1.2 asks for `If-None-Match`: `W/"x"` matches `"x"`.
    public func hasCurrentCopy(etag: String) -> Bool {
        guard let header = headers[.ifNoneMatch] else { return false }
        return header.split(separator: ",").contains { candidate in
            let trimmed = candidate.trimmingCharacters(in: .whitespaces)
            return trimmed == "*" || trimmed == etag || trimmed == "W/\(etag)"
        }
    }

    /// The version a write's `If-Match` names (`"3"`, `W/"3"` or `3`, as the entity's ETag gave it); nil without the
    /// header; 400 `invalid_if_match` when unreadable. Meals' and foods' edits compare it with the stored version.
    public func ifMatchVersion() throws -> Int? {
        guard let header = headers[.ifMatch] else { return nil }
        let trimmed = header.replacingOccurrences(of: "W/", with: "").trimmingCharacters(in: CharacterSet(charactersIn: "\" "))
        guard let version = Int(trimmed) else {
            throw APIError.badRequest("If-Match must hold the version, as in the ETag.", code: "invalid_if_match")
        }
        return version
    }
}

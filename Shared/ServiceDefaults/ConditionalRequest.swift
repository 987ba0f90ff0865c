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
}

import AccessTokens
import Foundation
import HTTPTypes
import ServiceDefaults

/// Who a request says it is, and the refusals a route answers when that does not hold: the bearer token of
/// `Authorization`, or, when that header is absent, a web client's access cookie (`SessionCookies`; `CSRFCheck` has
/// already checked an unsafe request sent with it). Refusals are 401 in the one error shape with an RFC 6750
/// `WWW-Authenticate`; an expired token says `token_expired` so clients know to refresh.
///
/// A second kind of credential (personal API tokens, checked per route against their scopes) is a new case of
/// `Credential`, verified where `PassThroughAdmission` verifies access tokens.
enum BearerCredentials {
    /// What a request carries.
    enum Credential: Sendable, Equatable {
        /// An access token, from `Authorization: Bearer` or the access cookie.
        case accessToken(String)
        /// `Authorization` is present but is not a bearer token.
        case malformed
        /// Nothing.
        case none
    }

    /// The credential of a request with these header fields, whose `Authorization` is `authorization` (read once by
    /// the caller, which also compares it with the connection's last one).
    static func credential(in fields: HTTPFields, authorization: String?) -> Credential {
        if let authorization {
            return bearerToken(authorization).map(Credential.accessToken) ?? .malformed
        }
        return SessionCookies.value(of: SessionCookies.access, in: fields).map(Credential.accessToken) ?? .none
    }

    /// The token of an `Authorization: Bearer <token>` header (scheme case-insensitive, RFC 9110 section 11.1).
    /// Read byte by byte from the header's contiguous UTF-8: it runs on every request with a token, and both
    /// Foundation's trimming (through UTF-16) and the indices of a substring's UTF-8 view showed in the gateway's profile.
    static func bearerToken(_ authorization: String) -> String? {
        var authorization = authorization
        return authorization.withUTF8 { bytes -> String? in
            let space = UInt8(ascii: " "), tab = UInt8(ascii: "\t")
            var start = 0
            while start < bytes.count, bytes[start] == space { start += 1 }
            let scheme = "bearer"
            let schemeEnd = start + scheme.utf8.count
            guard bytes.count > schemeEnd, bytes[schemeEnd] == space, ASCIICase.equals(bytes[start..<schemeEnd], lowercased: scheme) else {
                return nil
            }
            start = schemeEnd
            var end = bytes.count
            while start < end, bytes[start] == space || bytes[start] == tab { start += 1 }
            while end > start, bytes[end - 1] == space || bytes[end - 1] == tab { end -= 1 }
            return start == end ? nil : String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
        }
    }

    /// 401 `unauthenticated`: a private route without any credential.
    static let missing = APIError(
        .unauthorized, code: "unauthenticated", message: "Sign in to use this route.",
        headers: [.wwwAuthenticate: #"Bearer realm="nutritionai""#])

    /// 503 before the first key fetch: no token can be checked yet.
    static let keysUnavailable = APIError.unavailable("Sign-in checks are starting up; try again shortly.", retryAfterSeconds: 2)

    /// 401 for a token that does not verify; `token_expired` for an expired one.
    static func refusal(_ error: AccessTokenError) -> APIError {
        let code = error == .expired ? "token_expired" : "invalid_token"
        return APIError(
            .unauthorized, code: code, message: error.reason,
            headers: [.wwwAuthenticate: #"Bearer realm="nutritionai", error="invalid_token", error_description="\#(error.reason)""#])
    }
}

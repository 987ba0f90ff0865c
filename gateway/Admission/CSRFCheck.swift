import AccessTokens
import HTTPTypes
import ServiceDefaults

/// The CSRF defence of cookie sessions (`SessionCookies`). An unsafe request (not GET, HEAD or OPTIONS) without an
/// `Authorization` header that carries a session cookie, or asks for one (`X-Session-Transport: cookie`), must come
/// from a configured web origin (`Origin`, or else `Referer`) and, when it carries a session, echo the CSRF cookie in
/// `X-CSRF-Token` (double submit). Otherwise 403 `csrf_rejected`. Requests with a bearer token are the apps' and
/// are not concerned: browsers never add that header on their own.
struct CSRFCheck: Sendable {
    let origins: WebOrigins

    static let safeMethods: Set<HTTPRequest.Method> = [.get, .head, .options]

    /// The refusal of `request`, or nil when it may go on.
    func refusal(of request: HTTPRequest) -> APIError? {
        let fields = request.headerFields
        guard !Self.safeMethods.contains(request.method), !fields.has(.authorization) else { return nil }
        let cookies = fields[values: .cookie].joined(separator: "; ")
        let carriesSession =
            SessionCookies.value(of: SessionCookies.access, in: cookies) != nil
            || SessionCookies.value(of: SessionCookies.refresh, in: cookies) != nil
        guard carriesSession || SessionCookies.areAsked(in: fields) else { return nil }
        guard origins.allows(WebOrigins.origin(of: fields)) else {
            return Self.refusal("The request did not come from an allowed web origin.")
        }
        if carriesSession {
            guard let expected = SessionCookies.value(of: SessionCookies.csrf, in: cookies),
                let sent = fields[HTTPField.Name(SessionCookies.csrfHeader)!],
                Self.constantTimeEqual(Array(expected.utf8), Array(sent.utf8))
            else { return Self.refusal("Send the CSRF cookie's value in X-CSRF-Token.") }
        }
        return nil
    }

    static func refusal(_ message: String) -> APIError { APIError(.forbidden, code: "csrf_rejected", message: message) }

    /// Equality that takes as long whatever the first difference.
    static func constantTimeEqual(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
        guard lhs.count == rhs.count else { return false }
        return zip(lhs, rhs).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }
}

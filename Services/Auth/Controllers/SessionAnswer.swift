import AccessTokens
import Foundation
import HTTPTypes
import Hummingbird
import ServiceDefaults

/// A new or refreshed session as the client asked for it: the tokens in the body (the apps), or, for a web client
/// that sent `X-Session-Transport: cookie`, in `__Host-` cookies with a body that leaves them out (`SessionCookies`),
/// so that no script on the page can read them. A fresh CSRF token goes with every cookie session.
struct SessionAnswer: ResponseGenerator {
    var session: SessionBody
    var status: HTTPResponse.Status = .ok
    /// Whether the client asked for cookies.
    var inCookies: Bool
    /// How long the refresh cookie (and the CSRF cookie) live: the session's idle life.
    var sessionLifetime: Duration

    init(_ session: SessionBody, status: HTTPResponse.Status = .ok, request: Request, sessionLifetime: Duration) {
        self.session = session
        self.status = status
        self.inCookies = SessionCookies.areAsked(in: request.headers)
        self.sessionLifetime = sessionLifetime
    }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        guard inCookies else { return try EditedResponse(status: status, response: session).response(from: request, context: context) }
        let sessionSeconds = Int(sessionLifetime.components.seconds)
        var headers = HTTPFields()
        headers.append(
            HTTPField(name: .setCookie, value: SessionCookies.setCookie(SessionCookies.access, value: session.accessToken, maxAge: session.expiresIn))
        )
        headers.append(
            HTTPField(name: .setCookie, value: SessionCookies.setCookie(SessionCookies.refresh, value: session.refreshToken, maxAge: sessionSeconds)))
        let csrf = OpaqueToken.generate().value
        headers.append(HTTPField(name: .setCookie, value: SessionCookies.setCookie(SessionCookies.csrf, value: csrf, maxAge: sessionSeconds)))
        headers.append(HTTPField(name: .cacheControl, value: "no-store"))
        let body = CookieSessionBody(
            expiresAt: session.expiresAt, expiresIn: session.expiresIn, csrfToken: csrf, sessionId: session.sessionId, user: session.user,
            profile: session.profile)
        return try EditedResponse(status: status, headers: headers, response: body).response(from: request, context: context)
    }

    /// The `Set-Cookie` fields that clear every session cookie (sign-out).
    static var clearingCookies: HTTPFields {
        var headers = HTTPFields()
        for name in [SessionCookies.access, SessionCookies.refresh, SessionCookies.csrf] {
            headers.append(HTTPField(name: .setCookie, value: SessionCookies.setCookie(name, value: "", maxAge: 0)))
        }
        return headers
    }
}

/// The body of a cookie session: the session without its tokens (they are in the cookies).
struct CookieSessionBody: ResponseCodable, Equatable {
    var tokenType = "cookie"
    var expiresAt: Date
    var expiresIn: Int
    /// The CSRF cookie's value, for a page on another host than the API's, which cannot read that cookie: send it
    /// in `X-CSRF-Token` on unsafe requests.
    var csrfToken: String
    var sessionId: UUID
    var user: UserBody
    var profile: ProfileBody
}

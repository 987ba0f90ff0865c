import AccessTokens
import Foundation
import HTTPTypes
import Hummingbird
import ServiceDefaults

/// Requires a valid access token on every private route and records the caller in the context: the bearer token of
/// `Authorization`, or, when that header is absent, a web client's access cookie (`SessionCookies`; `CSRFMiddleware`
/// has already checked an unsafe request sent with it).
/// Public routes pass without one; a valid token there still identifies the caller (so a public prefix can hold
/// owner-only methods), and an invalid one does not block (sign-in must work with a stale token) but its problem is
/// passed on, so the owner-only methods can answer `token_expired` as private routes do. Refusals are 401 in the one
/// error shape with an RFC 6750 `WWW-Authenticate`; an expired token says `token_expired` so clients know to refresh.
/// Before the first key fetch: 503.
struct AuthenticationMiddleware: RouterMiddleware {
    let verifier: AccessTokenVerifier
    let now: @Sendable () -> Date

    func handle(
        _ request: Request, context: GatewayRequestContext, next: (Request, GatewayRequestContext) async throws -> Response
    ) async throws -> Response {
        guard let route = context.route else { return try await next(request, context) }
        if route.isPublic {
            var context = context
            if let token = request.headers[.authorization].flatMap(Self.bearerToken) ?? Self.cookieToken(request) {
                do {
                    context.caller = try await verifier.verify(token, now: now())
                } catch {
                    context.tokenProblem = error == .keysUnavailable ? nil : Self.refusal(error).code
                }
            }
            return try await next(request, context)
        }
        guard let authorization = request.headers[.authorization] else {
            if let token = Self.cookieToken(request) { return try await next(request, try await verified(token, context)) }
            throw APIError(
                .unauthorized, code: "unauthenticated", message: "Sign in to use this route.",
                headers: [.wwwAuthenticate: #"Bearer realm="nutritionai""#])
        }
        guard let token = Self.bearerToken(authorization) else { throw Self.refusal(.malformed) }
        return try await next(request, try await verified(token, context))
    }

    /// `context` with the caller of `token`; 401 for a token that does not verify, 503 before the first key fetch.
    private func verified(_ token: String, _ context: GatewayRequestContext) async throws -> GatewayRequestContext {
        var context = context
        do {
            context.caller = try await verifier.verify(token, now: now())
        } catch .keysUnavailable {
            throw APIError.unavailable("Sign-in checks are starting up; try again shortly.", retryAfterSeconds: 2)
        } catch {
            throw Self.refusal(error)
        }
        return context
    }

    /// A web client's access token, from its cookie, when no `Authorization` header was sent.
    static func cookieToken(_ request: Request) -> String? {
        guard request.headers[.authorization] == nil else { return nil }
        return SessionCookies.value(of: SessionCookies.access, in: request.headers)
    }

    /// The token of an `Authorization: Bearer <token>` header (scheme case-insensitive, RFC 9110 section 11.1).
    static func bearerToken(_ authorization: String) -> String? {
        let parts = authorization.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        let token = parts[1].trimmingCharacters(in: .whitespaces)
        return token.isEmpty ? nil : token
    }

    static func refusal(_ error: AccessTokenError) -> APIError {
        let code = error == .expired ? "token_expired" : "invalid_token"
        return APIError(
            .unauthorized, code: code, message: error.reason,
            headers: [.wwwAuthenticate: #"Bearer realm="nutritionai", error="invalid_token", error_description="\#(error.reason)""#])
    }
}

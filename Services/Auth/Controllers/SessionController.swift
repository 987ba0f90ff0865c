import AccessTokens
import Foundation
import Hummingbird
import PostgresNIO
import PostgresSupport
import ServiceDefaults

/// Sign-in, token refresh, sign-out and the session list: `/api/auth/*`.
struct SessionController: Sendable {
    let client: PostgresPool
    let accounts: AccountRepository
    let sessions: SessionRepository
    let sessionStore: SessionStore
    let issuer: SessionIssuer
    let hasher: PasswordHasher
    let throttle: LoginThrottle
    /// The session's idle life: how long a web client's refresh cookie lives.
    let sessionLifetime: Duration
    let now: @Sendable () -> Date

    func addRoutes(to router: Router<AppRequestContext>) {
        let auth = router.group("/api/auth")
        auth.post("/login", use: login)
        auth.post("/refresh", use: refresh)
        auth.post("/logout", use: logout)
        auth.post("/logout-all", use: logoutAll)
        auth.get("/sessions", use: list)
        auth.delete("/sessions/:id", use: endOne)
        auth.get("/me", use: me)
    }

    /// `POST /api/auth/login`: 200 with tokens (or cookies, `SessionAnswer`); 401 `invalid_credentials` for a wrong
    /// password or unknown address alike (same hashing work); 429 `too_many_attempts` while the address is locked.
    @Sendable func login(request: Request, context: AppRequestContext) async throws -> SessionAnswer {
        let logger = context.logger
        if let refusal = SessionCookies.transportRefusal(in: request.headers) { throw refusal }
        let body = try await request.decodeJSON(as: LoginRequest.self, context: context)
        let emailKey = EmailAddress.key(body.email)
        let now = now()
        try await throttle.checkAllowed(emailKey, now: now)
        let credentials = try await client.withConnection { try await accounts.credentials(emailKey: emailKey, on: $0, logger: logger) }
        guard try await hasher.verify(body.password, against: credentials?.passwordHash), let userId = credentials?.userId else {
            try await throttle.recordFailure(emailKey, now: now)
            throw APIError(.unauthorized, code: "invalid_credentials", message: "The email or password is incorrect.")
        }
        try await throttle.recordSuccess(emailKey)
        let session = try await sessionStore.open(userId: userId, request: request, now: now, logger: logger)
        return SessionAnswer(session, request: request, sessionLifetime: sessionLifetime)
    }

    /// `POST /api/auth/refresh`: rotates the refresh token, sent in the body or, for a web client asking for cookies,
    /// in the refresh cookie. A token used before (outside a few seconds' grace for a concurrent retry) ends the
    /// session: 401 `refresh_token_reused`.
    @Sendable func refresh(request: Request, context: AppRequestContext) async throws -> SessionAnswer {
        let logger = context.logger
        if let refusal = SessionCookies.transportRefusal(in: request.headers) { throw refusal }
        // The cookie only for a web client, and never beside an Authorization header (the apps' flow ignores cookies).
        let fromCookie =
            SessionCookies.areAsked(in: request.headers) && request.headers[.authorization] == nil
            ? SessionCookies.value(of: SessionCookies.refresh, in: request.headers) : nil
        let body = try await request.decodeOptionalJSON(as: RefreshRequest.self, empty: RefreshRequest(), context: context)
        guard let presented = body.refreshToken ?? fromCookie else {
            throw APIError(
                .unprocessableContent, code: "validation_failed",
                message: "Send refreshToken, or the refresh cookie with X-Session-Transport: cookie.", details: ["refreshToken": "is required"])
        }
        let next = OpaqueToken.generate()
        let now = now()
        let session = try await sessionStore.rotate(presented: presented, to: next, now: now, logger: logger).get()
        return SessionAnswer(session, request: request, sessionLifetime: sessionLifetime)
    }

    /// `POST /api/auth/logout`: ends the caller's session. 204, clearing the session cookies of a web client.
    @Sendable func logout(request: Request, context: AppRequestContext) async throws -> Response {
        let logger = context.logger
        let caller = try CallerIdentity(request)
        let now = now()
        _ = try await client.withConnection { connection in
            try await sessions.end(sessionId: caller.sessionId, userId: caller.userId, reason: "logout", now: now, on: connection, logger: logger)
        }
        return Response(status: .noContent, headers: SessionAnswer.clearingCookies)
    }

    /// `POST /api/auth/logout-all`: ends every session of the caller, this one included. 204.
    @Sendable func logoutAll(request: Request, context: AppRequestContext) async throws -> HTTPResponse.Status {
        let logger = context.logger
        let caller = try CallerIdentity(request)
        let now = now()
        _ = try await client.withConnection { connection in
            try await sessions.endAll(userId: caller.userId, keeping: nil, reason: "logout_all", now: now, on: connection, logger: logger)
        }
        return .noContent
    }

    /// `GET /api/auth/sessions`: the caller's active sessions, marking the current one.
    @Sendable func list(request: Request, context: AppRequestContext) async throws -> SessionListBody {
        let logger = context.logger
        let caller = try CallerIdentity(request)
        let now = now()
        let active = try await client.withConnection { connection in
            try await issuer.requireActive(caller, now: now, on: connection, logger: logger)
            return try await sessions.active(userId: caller.userId, now: now, on: connection, logger: logger)
        }
        return SessionListBody(
            sessions: active.map {
                SessionListItem(
                    id: $0.id, createdAt: $0.createdAt, lastUsedAt: $0.lastUsedAt, expiresAt: $0.expiresAt, userAgent: $0.userAgent,
                    clientAddress: $0.clientAddress, current: $0.id == caller.sessionId)
            })
    }

    /// `DELETE /api/auth/sessions/:id`: ends one of the caller's sessions (a lost device). 204, or 404.
    @Sendable func endOne(request: Request, context: AppRequestContext) async throws -> HTTPResponse.Status {
        let logger = context.logger
        let caller = try CallerIdentity(request)
        let sessionId = try context.parameters.uuid("id")
        let now = now()
        let ended = try await client.withConnection { connection in
            try await issuer.requireActive(caller, now: now, on: connection, logger: logger)
            return try await sessions.end(sessionId: sessionId, userId: caller.userId, reason: "logout", now: now, on: connection, logger: logger)
        }
        guard ended else { throw APIError.notFound("No such session.") }
        return .noContent
    }

    /// `GET /api/auth/me`: the caller's account and profile; 401 `session_ended` after a logout.
    @Sendable func me(request: Request, context: AppRequestContext) async throws -> MeBody {
        let logger = context.logger
        let caller = try CallerIdentity(request)
        let now = now()
        return try await client.withConnection { connection in
            try await issuer.requireActive(caller, now: now, on: connection, logger: logger)
            return try await issuer.account(userId: caller.userId, on: connection, logger: logger)
        }
    }
}

import Foundation
import Hummingbird
import PostgresNIO
import PostgresSupport
import ServiceDefaults

/// Password change and reset: `PUT /api/auth/password`, `POST /api/auth/password-reset[/confirm]`.
struct PasswordController: Sendable {
    let client: PostgresPool
    let accounts: AccountRepository
    let store: PasswordStore
    let issuer: SessionIssuer
    let hasher: PasswordHasher
    let throttle: LoginThrottle
    let resetLifetime: Duration
    let resetURL: String
    let mailFrom: String
    let mailWake: WakeSignal
    let now: @Sendable () -> Date

    static let resetAnswer = MessageBody(
        message: "If an account exists for this address, we have sent it a link to reset the password. The link works for one hour.")

    func addRoutes(to router: Router<AppRequestContext>) {
        router.put("/api/auth/password", use: change)
        router.post("/api/auth/password-reset", use: requestReset)
        router.post("/api/auth/password-reset/confirm", use: confirmReset)
    }

    /// `PUT /api/auth/password`: needs the current password; ends every other session. 204;
    /// 403 `wrong_password` (counted like a failed sign-in); 422 for a weak new password.
    @Sendable func change(request: Request, context: AppRequestContext) async throws -> HTTPResponse.Status {
        let logger = context.logger
        let caller = try CallerIdentity(request)
        let body = try await request.decodeJSON(as: ChangePasswordRequest.self, context: context)
        if let problem = PasswordPolicy.problem(with: body.newPassword) { throw APIError.invalid(["newPassword": problem]) }
        let now = now()
        let (user, currentHash) = try await client.withConnection { connection in
            try await issuer.requireActive(caller, now: now, on: connection, logger: logger)
            return (
                try await accounts.user(id: caller.userId, on: connection, logger: logger),
                try await accounts.passwordHash(userId: caller.userId, on: connection, logger: logger)
            )
        }
        guard let user else { throw APIError(.unauthorized, code: "session_ended", message: "This account no longer exists.") }
        let throttleKey = EmailAddress.key(user.email)
        try await throttle.checkAllowed(throttleKey, now: now)
        guard try await hasher.verify(body.currentPassword, against: currentHash) else {
            try await throttle.recordFailure(throttleKey, now: now)
            throw APIError(.forbidden, code: "wrong_password", message: "The current password is incorrect.")
        }
        let newHash = try await hasher.hash(body.newPassword)
        try await store.change(userId: caller.userId, to: newHash, keeping: caller.sessionId, now: now, logger: logger)
        return .noContent
    }

    /// `POST /api/auth/password-reset`: always 202 with the same body, whether or not the address has an account.
    /// For an account: a single-use token valid for `resetLifetime`, stored as a hash, mailed through the outbox.
    @Sendable func requestReset(request: Request, context: AppRequestContext) async throws -> EditedResponse<MessageBody> {
        let logger = context.logger
        let body = try await request.decodeJSON(as: PasswordResetRequest.self, context: context)
        guard let email = EmailAddress(body.email) else { throw APIError.invalid(["email": "must be a valid email address"]) }
        let now = now()
        let token = OpaqueToken.generate()
        let queued = try await store.queueReset(
            for: email, tokenHash: token.hash, now: now, expiresAt: now.addingTimeInterval(resetLifetime.timeInterval),
            makeMail: { recipient in resetMail(to: recipient, token: token) }, logger: logger)
        if queued { mailWake.signal() }
        return EditedResponse(status: .accepted, response: Self.resetAnswer)
    }

    /// `POST /api/auth/password-reset/confirm`: sets the password and ends every session. 204;
    /// 422 `invalid_reset_token` for an unknown, used or expired token; 422 for a weak password.
    @Sendable func confirmReset(request: Request, context: AppRequestContext) async throws -> HTTPResponse.Status {
        let logger = context.logger
        let body = try await request.decodeJSON(as: PasswordResetConfirmation.self, context: context)
        if let problem = PasswordPolicy.problem(with: body.newPassword) { throw APIError.invalid(["newPassword": problem]) }
        let newHash = try await hasher.hash(body.newPassword)
        let now = now()
        let emailKey = try await store.confirmReset(tokenHash: OpaqueToken.hash(body.token), to: newHash, now: now, logger: logger)
        guard let emailKey else {
            throw APIError(
                .unprocessableContent, code: "invalid_reset_token", message: "This reset link is invalid, used or expired; ask for a new one.",
                details: ["token": "is not a reset token in force"])
        }
        try await throttle.recordSuccess(emailKey)
        return .noContent
    }

    private func resetMail(to recipient: String, token: OpaqueToken) -> MailMessage {
        let minutes = resetLifetime.components.seconds / 60
        return MailMessage(
            from: mailFrom, to: recipient, subject: "Reset your NutritionAI password",
            body: """
                Someone asked to reset the password of your NutritionAI account.

                To choose a new password, open this link within \(minutes) minutes:
                \(resetURL)?token=\(token.value)

                If it was not you, ignore this message: your password stays as it is.
                """)
    }
}

import Foundation
import Hummingbird
import PostgresNIO
import PostgresSupport
import ServiceDefaults

/// Profile and goals, and account deletion: `/api/users/*`.
struct UserController: Sendable {
    let client: PostgresPool
    let accounts: AccountRepository
    let store: AccountStore
    let issuer: SessionIssuer
    let hasher: PasswordHasher
    let now: @Sendable () -> Date
    let logger: Logger

    func addRoutes(to router: Router<AppRequestContext>) {
        router.get("/api/users/profile", use: profile)
        router.put("/api/users/profile", use: updateProfile)
        router.delete("/api/users/me", use: deleteAccount)
    }

    /// `GET /api/users/profile`.
    @Sendable func profile(request: Request, context: AppRequestContext) async throws -> ProfileBody {
        let caller = try CallerIdentity(request)
        let now = now()
        return try await client.withConnection { connection in
            try await issuer.requireActive(caller, now: now, on: connection)
            guard let profile = try await accounts.profile(userId: caller.userId, on: connection) else { throw APIError.notFound() }
            return ProfileBody(profile)
        }
    }

    /// `PUT /api/users/profile`: fields given are changed, absent ones kept, `null` clears an optional goal.
    /// 422 naming every invalid field; each change emits `user.profile_updated` with the whole profile.
    @Sendable func updateProfile(request: Request, context: AppRequestContext) async throws -> ProfileBody {
        let caller = try CallerIdentity(request)
        let update = try await request.decodeJSON(as: ProfileUpdate.self, context: context)
        let now = now()
        return ProfileBody(try await store.updateProfile(caller, with: update, now: now))
    }

    /// `DELETE /api/users/me` {password}: deletes the account and everything the auth service holds about it, and
    /// emits `user.deleted` so every other service purges the user. 204; 403 `wrong_password`.
    @Sendable func deleteAccount(request: Request, context: AppRequestContext) async throws -> HTTPResponse.Status {
        let caller = try CallerIdentity(request)
        let body = try await request.decodeJSON(as: DeleteAccountRequest.self, context: context)
        let now = now()
        let hash = try await client.withConnection { connection in
            try await issuer.requireActive(caller, now: now, on: connection)
            return try await accounts.passwordHash(userId: caller.userId, on: connection)
        }
        guard try await hasher.verify(body.password, against: hash) else {
            throw APIError(.forbidden, code: "wrong_password", message: "The password is incorrect.")
        }
        // A concurrent second request finds nothing to delete and emits nothing.
        try await store.delete(userId: caller.userId, now: now)
        logger.info("account deleted", metadata: ["user_id": "\(caller.userId)"])
        return .noContent
    }
}

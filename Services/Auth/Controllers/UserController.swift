import Foundation
import Hummingbird
import ServiceDefaults
import SyncContracts
import WireJSON

/// Profile and goals, and account deletion: `/api/users/*`.
struct UserController: Sendable {
    let store: any AccountStore
    let hasher: PasswordHasher
    let now: @Sendable () -> Date

    func addRoutes(to router: Router<AppRequestContext>) {
        router.get("/api/users/profile", use: profile)
        router.put("/api/users/profile", use: updateProfile)
        router.delete("/api/users/me", use: deleteAccount)
    }

    /// `GET /api/users/profile`.
    @Sendable func profile(request: Request, context: AppRequestContext) async throws -> ProfileBody {
        let logger = context.logger
        let caller = try CallerIdentity(request)
        let now = now()
        guard let profile = try await store.profile(of: caller, now: now, logger: logger) else { throw APIError.notFound() }
        return ProfileBody(profile)
    }

    /// `PUT /api/users/profile`: fields given are changed, absent ones kept, `null` clears an optional goal.
    /// 422 naming every invalid field; each change emits `user.profile_updated` with the whole profile. Last write
    /// wins by the body's `modifiedAt` (the server's time without one): an older write than the stored one is not
    /// applied and answers 200 with the stored profile and `conflict: stale_write_ignored`.
    @Sendable func updateProfile(request: Request, context: AppRequestContext) async throws -> ProfileBody {
        let logger = context.logger
        let caller = try CallerIdentity(request)
        var request = request
        // The raw bytes make the stamp's tiebreak; decoding reads the collected body again.
        let body = try await request.collectBody(upTo: context.maxUploadSize)
        let update = try await request.decodeJSON(as: ProfileUpdate.self, context: context)
        let incoming = (try? JSONDecoder().decode(JSONValue.self, from: Data(buffer: body))) ?? .null
        let now = now()
        let stamp = try WriteStamp.of(modifiedAt: update.modifiedAt, body: body.readableBytesView, now: now)
        let result = try await store.updateProfile(caller, with: update, stamp: stamp, incoming: incoming, now: now, logger: logger)
        return ProfileBody(result.profile, conflict: result.staleWriteIgnored ? .staleWriteIgnored : nil)
    }

    /// `DELETE /api/users/me` {password}: deletes the account and everything the auth service holds about it, and
    /// emits `user.deleted` so every other service purges the user. 204; 403 `wrong_password`.
    @Sendable func deleteAccount(request: Request, context: AppRequestContext) async throws -> HTTPResponse.Status {
        let logger = context.logger
        let caller = try CallerIdentity(request)
        let body = try await request.decodeJSON(as: DeleteAccountRequest.self, context: context)
        let now = now()
        let hash = try await store.passwordHash(of: caller, now: now, logger: logger)
        guard try await hasher.verify(body.password, against: hash) else {
            throw APIError(.forbidden, code: "wrong_password", message: "The password is incorrect.")
        }
        // A concurrent second request finds nothing to delete and emits nothing.
        try await store.delete(userId: caller.userId, now: now, logger: logger)
        logger.info("account deleted", metadata: ["user_id": .string(caller.userId.lowercasedString)])
        return .noContent
    }
}

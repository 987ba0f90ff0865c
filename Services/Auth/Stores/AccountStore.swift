import Foundation
import Hummingbird
import Logging
import PostgresSupport
import ServiceDefaults

/// Every write of an account: the rows and their `user.profile_updated` or `user.deleted` event commit in one
/// transaction.
struct AccountStore: Sendable {
    let client: PostgresPool
    let accounts: AccountRepository
    let issuer: SessionIssuer
    let logger: Logger

    /// Creates the account, its profile (published) and its first session; 400 `email_taken` when the address has
    /// an account already.
    func register(
        userId: UUID, email: EmailAddress, passwordHash: String, profile: Profile, request: Request, now: Date
    ) async throws -> SessionBody {
        try await client.transaction(logger: logger) { connection in
            do {
                try await accounts.insertUser(id: userId, email: email, passwordHash: passwordHash, now: now, on: connection)
            } catch is AccountRepository.EmailTaken {
                throw APIError(.badRequest, code: "email_taken", message: "An account with this email already exists.")
            }
            try await accounts.saveProfile(profile, on: connection)
            try await AccountEvents.profileUpdated(profile, now: now, on: connection, logger: logger)
            let (sessionId, refresh) = try await issuer.open(userId: userId, request: request, now: now, on: connection)
            return try await issuer.body(userId: userId, sessionId: sessionId, refreshToken: refresh, now: now, on: connection)
        }
    }

    /// Applies `update` to the caller's profile under a row lock; a change gets the next version and is published,
    /// no change writes nothing. 404 without a profile; 422 naming every invalid field.
    func updateProfile(_ caller: CallerIdentity, with update: ProfileUpdate, now: Date) async throws -> Profile {
        try await client.transaction(logger: logger) { connection in
            try await issuer.requireActive(caller, now: now, on: connection)
            guard let current = try await accounts.profile(userId: caller.userId, forUpdate: true, on: connection) else {
                throw APIError.notFound()
            }
            var updated: Profile
            switch update.applied(to: current, today: now) {
            case .success(let profile): updated = profile
            case .failure(let error): throw APIError.invalid(error.fields)
            }
            guard updated != current else { return current }
            updated.version = current.version + 1
            updated.updatedAt = now
            try await accounts.saveProfile(updated, on: connection)
            try await AccountEvents.profileUpdated(updated, now: now, on: connection, logger: logger)
            return updated
        }
    }

    /// Deletes the account and publishes `user.deleted`; false (and nothing published) when it was already gone,
    /// as for a concurrent second request.
    @discardableResult
    func delete(userId: UUID, now: Date) async throws -> Bool {
        try await client.transaction(logger: logger) { connection in
            guard try await accounts.delete(userId: userId, on: connection) else { return false }
            try await AccountEvents.userDeleted(userId, now: now, on: connection, logger: logger)
            return true
        }
    }
}

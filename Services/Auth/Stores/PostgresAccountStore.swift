import Foundation
import Hummingbird
import Logging
import PostgresSupport
import ServiceDefaults

/// `AccountStore` on the service's schema, plus registration: every write of an account and its
/// `user.profile_updated` or `user.deleted` event commit in one transaction.
struct PostgresAccountStore: AccountStore {
    let client: PostgresPool
    let accounts: AccountRepository
    let issuer: SessionIssuer

    /// Creates the account, its profile (published) and its first session; 400 `email_taken` when the address has
    /// an account already.
    func register(
        userId: UUID, email: EmailAddress, passwordHash: String, profile: Profile, request: Request, now: Date, logger: Logger
    ) async throws -> SessionBody {
        try await client.transaction(logger: logger) { connection in
            do {
                try await accounts.insertUser(id: userId, email: email, passwordHash: passwordHash, now: now, on: connection, logger: logger)
            } catch is AccountRepository.EmailTaken {
                throw APIError(.badRequest, code: "email_taken", message: "An account with this email already exists.")
            }
            try await accounts.saveProfile(profile, on: connection, logger: logger)
            try await AccountEvents.profileUpdated(profile, now: now, on: connection, logger: logger)
            let (sessionId, refresh) = try await issuer.open(userId: userId, request: request, now: now, on: connection, logger: logger)
            return try await issuer.body(userId: userId, sessionId: sessionId, refreshToken: refresh, now: now, on: connection, logger: logger)
        }
    }

    func profile(of caller: CallerIdentity, now: Date, logger: Logger) async throws -> Profile? {
        try await client.withConnection { connection in
            try await issuer.requireActive(caller, now: now, on: connection, logger: logger)
            return try await accounts.profile(userId: caller.userId, on: connection, logger: logger)
        }
    }

    func passwordHash(of caller: CallerIdentity, now: Date, logger: Logger) async throws -> String? {
        try await client.withConnection { connection in
            try await issuer.requireActive(caller, now: now, on: connection, logger: logger)
            return try await accounts.passwordHash(userId: caller.userId, on: connection, logger: logger)
        }
    }

    func updateProfile(_ caller: CallerIdentity, with update: ProfileUpdate, now: Date, logger: Logger) async throws -> Profile {
        try await client.transaction(logger: logger) { connection in
            try await issuer.requireActive(caller, now: now, on: connection, logger: logger)
            guard let current = try await accounts.profile(userId: caller.userId, forUpdate: true, on: connection, logger: logger) else {
                throw APIError.notFound()
            }
            guard let updated = try update.revision(of: current, at: now) else { return current }
            try await accounts.saveProfile(updated, on: connection, logger: logger)
            try await AccountEvents.profileUpdated(updated, now: now, on: connection, logger: logger)
            return updated
        }
    }

    @discardableResult
    func delete(userId: UUID, now: Date, logger: Logger) async throws -> Bool {
        try await client.transaction(logger: logger) { connection in
            guard try await accounts.delete(userId: userId, on: connection, logger: logger) else { return false }
            try await AccountEvents.userDeleted(userId, now: now, on: connection, logger: logger)
            return true
        }
    }
}

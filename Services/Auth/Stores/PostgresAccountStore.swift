import BackendKit
import Foundation
import Hummingbird
import Logging
import PostgresSupport
import ServiceDefaults
import SyncContracts
import WireJSON

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
                throw APIError(.conflict, code: "email_taken", message: "An account with this email already exists.")
            }
            var profile = profile
            profile.writeStamp = profile.writeStamp ?? WriteStamp(now, tiebreak: "")
            profile.changeSeq = try await SyncClock.next(for: userId, on: connection, logger: logger)
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

    func updateProfile(
        _ caller: CallerIdentity, with update: ProfileUpdate, stamp: WriteStamp, incoming: JSONValue, now: Date, logger: Logger
    ) async throws -> ProfileWriteResult {
        try await client.transaction(logger: logger) { connection in
            try await issuer.requireActive(caller, now: now, on: connection, logger: logger)
            guard let current = try await accounts.profile(userId: caller.userId, forUpdate: true, on: connection, logger: logger) else {
                throw APIError.notFound()
            }
            switch try ProfileWrite.decide(update, stamp: stamp, current: current, now: now) {
            case .keep:
                return ProfileWriteResult(profile: current)
            case .restamp(let stamp):
                var restamped = current
                restamped.writeStamp = stamp
                // The change number last, after the row lock above.
                restamped.changeSeq = try await SyncClock.next(for: caller.userId, on: connection, logger: logger)
                try await accounts.saveProfile(restamped, on: connection, logger: logger)
                return ProfileWriteResult(profile: restamped)
            case .revise(var updated):
                updated.changeSeq = try await SyncClock.next(for: caller.userId, on: connection, logger: logger)
                try await accounts.saveProfile(updated, on: connection, logger: logger)
                try await AccountEvents.profileUpdated(updated, now: now, on: connection, logger: logger)
                return ProfileWriteResult(profile: updated)
            case .ignoreStale:
                let storedStamp = current.writeStamp ?? WriteStamp(current.updatedAt, tiebreak: "")
                try await SyncConflictLog.record(
                    userId: caller.userId, type: ProfileSyncController.entityType, entityId: caller.userId.lowercasedString,
                    resolution: .staleWriteIgnored,
                    stored: ProfileConflictSide(version: current.version, modifiedAt: storedStamp.date, data: ProfileBody(current)),
                    incoming: ProfileConflictSide(version: nil, modifiedAt: stamp.date, data: incoming), at: now, on: connection,
                    logger: logger)
                return ProfileWriteResult(profile: current, staleWriteIgnored: true)
            }
        }
    }

    func profileChange(of caller: CallerIdentity, since: Int64, now: Date, logger: Logger) async throws -> Profile? {
        try await client.withConnection { connection in
            try await issuer.requireActive(caller, now: now, on: connection, logger: logger)
            if try await SyncClock.isExpired(since, userId: caller.userId, on: connection, logger: logger) { throw SyncFeedQuery.expired }
            return try await accounts.profile(userId: caller.userId, changedAfter: since, on: connection, logger: logger)
        }
    }

    func conflicts(of caller: CallerIdentity, limit: Int, cursor: String?, now: Date, logger: Logger) async throws -> SyncConflictPage<JSONValue> {
        try await client.withConnection { connection in
            try await issuer.requireActive(caller, now: now, on: connection, logger: logger)
        }
        return try await SyncConflictLog.list(userId: caller.userId, limit: limit, cursor: cursor, client: client, logger: logger)
    }

    @discardableResult
    func delete(userId: UUID, now: Date, logger: Logger) async throws -> Bool {
        try await client.transaction(logger: logger) { connection in
            guard try await accounts.delete(userId: userId, on: connection, logger: logger) else { return false }
            // The sync tables have no foreign key to users; the account's rows above went by cascade.
            try await SyncClock.forget(userId, on: connection, logger: logger)
            // Its sessions went by cascade without ending: revoke the user's tokens as a whole.
            try await issuer.sessions.revocations.revoke(userId: userId, now: now, on: connection, logger: logger)
            try await AccountEvents.userDeleted(userId, now: now, on: connection, logger: logger)
            return true
        }
    }
}

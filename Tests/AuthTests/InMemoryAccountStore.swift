import Foundation
import Hummingbird
import Logging
import ServiceDefaults
import SyncContracts
import Synchronization

@testable import AuthService

/// `AccountStore` in memory, for router tests: the same rules as the Postgres one (an address registers once, else
/// 409 `email_taken`; a caller whose session is not active gets 401 `session_ended`; a profile change gets the next
/// version and one `user.profile_updated`, no change writes nothing; a deletion ends every session and publishes
/// `user.deleted` once) and a record of what it published.
final class InMemoryAccountStore: AccountStore {
    private struct State {
        var profiles: [UUID: Profile] = [:]
        var passwordHashes: [UUID: String] = [:]
        var activeSessions: [UUID: UUID] = [:]  // session id -> user id
        var emailKeys: [String: UUID] = [:]
        var clocks: [UUID: Int64] = [:]
        var conflicts: [UUID: [SyncConflictBody<JSONValue>]] = [:]

        /// The user's next change number, as `SyncClock.next`.
        mutating func nextSeq(for userId: UUID) -> Int64 {
            let next = (clocks[userId] ?? 0) + 1
            clocks[userId] = next
            return next
        }
        var published: [(type: String, userId: UUID, version: Int?)] = []
    }

    private let state = Mutex(State())

    /// Every event published, oldest first: its type, user and (for a profile) version.
    var published: [(type: String, userId: UUID, version: Int?)] { state.withLock { $0.published } }

    /// Adds an account with a profile, a password hash and one active session.
    func addAccount(_ profile: Profile, passwordHash: String, sessionId: UUID) {
        state.withLock { state in
            state.profiles[profile.userId] = profile
            state.passwordHashes[profile.userId] = passwordHash
            state.activeSessions[sessionId] = profile.userId
        }
    }

    /// Ends one session, as a sign-out would.
    func endSession(_ sessionId: UUID) { _ = state.withLock { $0.activeSessions.removeValue(forKey: sessionId) } }

    func storedProfile(of userId: UUID) -> Profile? { state.withLock { $0.profiles[userId] } }

    func register(
        userId: UUID, email: EmailAddress, passwordHash: String, profile: Profile, request: Request, now: Date, logger: Logger
    ) async throws -> SessionBody {
        try state.withLock { state in
            guard state.emailKeys[email.key] == nil else {
                throw APIError(.conflict, code: "email_taken", message: "An account with this email already exists.")
            }
            let sessionId = UUID()
            state.emailKeys[email.key] = userId
            var profile = profile
            profile.writeStamp = profile.writeStamp ?? WriteStamp(now, tiebreak: "")
            profile.changeSeq = state.nextSeq(for: userId)
            state.profiles[userId] = profile
            state.passwordHashes[userId] = passwordHash
            state.activeSessions[sessionId] = userId
            state.published.append(("user.profile_updated", userId, profile.version))
            let expiresAt = now.addingTimeInterval(900)
            return SessionBody(
                token: "access-\(sessionId.uuidString.lowercased())", accessToken: "access-\(sessionId.uuidString.lowercased())",
                expiresAt: expiresAt, expiresIn: 900,
                refreshToken: "refresh-\(sessionId.uuidString.lowercased())", sessionId: sessionId,
                user: UserBody(id: userId, email: email.value, displayName: profile.displayName, createdAt: now),
                profile: ProfileBody(profile))
        }
    }

    func profile(of caller: CallerIdentity, now: Date, logger: Logger) async throws -> Profile? {
        try state.withLock { state in
            try Self.requireActive(caller, in: state)
            return state.profiles[caller.userId]
        }
    }

    func passwordHash(of caller: CallerIdentity, now: Date, logger: Logger) async throws -> String? {
        try state.withLock { state in
            try Self.requireActive(caller, in: state)
            return state.passwordHashes[caller.userId]
        }
    }

    func updateProfile(
        _ caller: CallerIdentity, with update: ProfileUpdate, stamp: WriteStamp, incoming: JSONValue, now: Date, logger: Logger
    ) async throws -> ProfileWriteResult {
        try state.withLock { state in
            try Self.requireActive(caller, in: state)
            guard let current = state.profiles[caller.userId] else { throw APIError.notFound() }
            switch try ProfileWrite.decide(update, stamp: stamp, current: current, now: now) {
            case .keep:
                return ProfileWriteResult(profile: current)
            case .restamp(let stamp):
                var restamped = current
                restamped.writeStamp = stamp
                restamped.changeSeq = state.nextSeq(for: caller.userId)
                state.profiles[caller.userId] = restamped
                return ProfileWriteResult(profile: restamped)
            case .revise(var updated):
                updated.changeSeq = state.nextSeq(for: caller.userId)
                state.profiles[caller.userId] = updated
                state.published.append(("user.profile_updated", caller.userId, updated.version))
                return ProfileWriteResult(profile: updated)
            case .ignoreStale:
                let conflict = SyncConflictBody<JSONValue>(
                    id: UUID(), type: "profile", entityId: caller.userId.uuidString.lowercased(), resolution: .staleWriteIgnored,
                    winner: "stored", stored: .object(["version": .number(Double(current.version))]),
                    incoming: .object(["data": incoming]), resolvedAt: now)
                state.conflicts[caller.userId, default: []].insert(conflict, at: 0)
                return ProfileWriteResult(profile: current, staleWriteIgnored: true)
            }
        }
    }

    func profileChange(of caller: CallerIdentity, since: Int64, now: Date, logger: Logger) async throws -> Profile? {
        try state.withLock { state in
            try Self.requireActive(caller, in: state)
            guard let profile = state.profiles[caller.userId], profile.changeSeq > since else { return nil }
            return profile
        }
    }

    func conflicts(of caller: CallerIdentity, limit: Int, cursor: String?, now: Date, logger: Logger) async throws -> SyncConflictPage<JSONValue> {
        try state.withLock { state in
            try Self.requireActive(caller, in: state)
            // As the PostgreSQL store (SyncConflictLog): a cursor this API did not make is 422 `invalid_cursor`.
            if let cursor { _ = try ListCursor.decodeTime(cursor) }
            return SyncConflictPage(conflicts: Array((state.conflicts[caller.userId] ?? []).prefix(limit)), nextCursor: nil)
        }
    }

    func delete(userId: UUID, now: Date, logger: Logger) async throws -> Bool {
        state.withLock { state in
            guard state.profiles.removeValue(forKey: userId) != nil else { return false }
            state.passwordHashes[userId] = nil
            state.clocks[userId] = nil
            state.conflicts[userId] = nil
            state.activeSessions = state.activeSessions.filter { $0.value != userId }
            state.published.append(("user.deleted", userId, nil))
            return true
        }
    }

    private static func requireActive(_ caller: CallerIdentity, in state: State) throws {
        guard state.activeSessions[caller.sessionId] == caller.userId else {
            throw APIError(.unauthorized, code: "session_ended", message: "This session has ended; sign in again.")
        }
    }
}

import Foundation
import Synchronization

/// The revocations a gateway knows, in memory: ended sessions, and users whose tokens issued up to a cutoff are
/// refused. Each is forgotten once it expires, so the set holds at most one access-token lifetime of sign-outs.
public final class RevocationSet: Sendable {
    /// The live entries: when each stops mattering, and for users the issue-time cutoff.
    private struct Entries: Sendable {
        var sessions: [UUID: Date] = [:]
        var users: [UUID: (cutoff: Date, expiresAt: Date)] = [:]
    }

    private let entries = Mutex(Entries())

    public init() {}

    /// Adds `revocations` (repeats are harmless) and forgets the expired ones at `now`.
    public func apply(_ revocations: [Revocation], now: Date) {
        entries.withLock { entries in
            for revocation in revocations where revocation.expiresAt > now {
                if let sessionId = revocation.sessionId {
                    entries.sessions[sessionId] = max(entries.sessions[sessionId] ?? revocation.expiresAt, revocation.expiresAt)
                } else {
                    let known = entries.users[revocation.userId]
                    entries.users[revocation.userId] = (
                        cutoff: max(known?.cutoff ?? revocation.revokedAt, revocation.revokedAt),
                        expiresAt: max(known?.expiresAt ?? revocation.expiresAt, revocation.expiresAt)
                    )
                }
            }
            entries.sessions = entries.sessions.filter { $0.value > now }
            entries.users = entries.users.filter { $0.value.expiresAt > now }
        }
    }

    /// Whether `token` is refused: its session ended, or its user's tokens issued up to a cutoff after its `iat` are.
    public func isRevoked(_ token: VerifiedAccessToken) -> Bool {
        entries.withLock { entries in
            if entries.sessions[token.sessionId] != nil { return true }
            guard let user = entries.users[token.userId] else { return false }
            return token.issuedAt <= user.cutoff
        }
    }

    /// How many sessions and users are revoked.
    public var count: Int { entries.withLock { $0.sessions.count + $0.users.count } }
}

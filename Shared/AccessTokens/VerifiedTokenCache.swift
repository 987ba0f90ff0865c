import Foundation
import Synchronization

/// Tokens already verified, kept until they expire so a repeat costs a dictionary lookup instead of a signature check.
/// Bounded: when full it first drops expired entries, and if still full forgets everything (a cache miss only costs
/// one signature check).
final class VerifiedTokenCache: Sendable {
    private let entries = Mutex<[String: VerifiedAccessToken]>([:])
    let capacity: Int

    init(capacity: Int) {
        self.capacity = capacity
    }

    /// The cached result for `token`, if it is still valid at `now`.
    func lookup(_ token: String, now: Date) -> VerifiedAccessToken? {
        entries.withLock { entries in
            guard let verified = entries[token] else { return nil }
            if verified.expiresAt <= now {
                entries[token] = nil
                return nil
            }
            return verified
        }
    }

    func store(_ token: String, _ verified: VerifiedAccessToken, now: Date) {
        entries.withLock { entries in
            if entries.count >= capacity {
                entries = entries.filter { $0.value.expiresAt > now }
                if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
            }
            entries[token] = verified
        }
    }

    /// Forgets the entries `predicate` picks.
    func removeAll(where predicate: (VerifiedAccessToken) -> Bool) {
        entries.withLock { entries in entries = entries.filter { !predicate($0.value) } }
    }

    func removeAll() {
        entries.withLock { $0.removeAll() }
    }

    var count: Int { entries.withLock { $0.count } }
}

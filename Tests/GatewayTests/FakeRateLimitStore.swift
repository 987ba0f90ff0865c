import Synchronization

@testable import Gateway

/// A rate-limit store in memory with the real one's arithmetic (one lock stands for the row lock): windows of
/// `windowSeconds` that never close during a test. `isDown` makes every call throw, as a stopped database would.
final class FakeRateLimitStore: RateLimitStore {
    struct Down: Error {}

    private let used = Mutex<[String: Int]>([:])
    private let down = Mutex(false)

    /// Whether every call fails.
    var isDown: Bool {
        get { down.withLock { $0 } }
        set { down.withLock { $0 = newValue } }
    }

    func take(_ amount: Int, of policy: RateLimitPolicy, key: String) async throws -> RateLimitGrant {
        guard !isDown else { throw Down() }
        return used.withLock { used in
            let before = used["\(policy.name)|\(key)", default: 0]
            let granted = max(0, min(amount, policy.limit - before))
            used["\(policy.name)|\(key)"] = before + granted
            return RateLimitGrant(granted: granted, used: before + granted, secondsLeft: Double(policy.windowSeconds))
        }
    }

    func prepare() async throws { guard !isDown else { throw Down() } }

    func ping() async throws { guard !isDown else { throw Down() } }

    func deleteClosedWindows() async throws -> Int { 0 }
}

import Synchronization

/// Fixed-window request counters: a key's window opens at its first request and admits exactly `limit`
/// requests until it closes, however many arrive at once (one lock around check and increment).
/// Holds at most `maxKeys` windows; when full it drops closed windows, and if every window is still open it
/// admits without counting rather than refusing strangers (and says so in the decision).
final class RateLimiter: Sendable {
    /// The answer for one request.
    struct Decision: Equatable {
        var allowed: Bool
        /// Requests left in the current window after this one.
        var remaining: Int
        /// Whole seconds until the window closes (at least 1).
        var resetSeconds: Int
        /// False when the table was full and this request was admitted unrecorded.
        var counted: Bool = true
    }

    private struct Window {
        var closesAt: ContinuousClock.Instant
        var count: Int
    }

    private let windows = Mutex<[String: Window]>([:])
    let maxKeys: Int

    init(maxKeys: Int = 200_000) {
        self.maxKeys = maxKeys
    }

    /// Counts one request for `key` under `policy` at `now`.
    func admit(key: String, policy: RateLimitPolicy, now: ContinuousClock.Instant) -> Decision {
        windows.withLock { windows in
            if var window = windows[key], window.closesAt > now {
                let reset = Self.seconds(from: now, to: window.closesAt)
                guard window.count < policy.limit else { return Decision(allowed: false, remaining: 0, resetSeconds: reset) }
                window.count += 1
                windows[key] = window
                return Decision(allowed: true, remaining: policy.limit - window.count, resetSeconds: reset)
            }
            if windows.count >= maxKeys {
                windows = windows.filter { $0.value.closesAt > now }
                if windows.count >= maxKeys {
                    return Decision(allowed: true, remaining: policy.limit - 1, resetSeconds: policy.windowSeconds, counted: false)
                }
            }
            windows[key] = Window(closesAt: now + .seconds(policy.windowSeconds), count: 1)
            return Decision(allowed: true, remaining: policy.limit - 1, resetSeconds: policy.windowSeconds)
        }
    }

    /// Windows currently held.
    var keyCount: Int { windows.withLock { $0.count } }

    /// Whole seconds from `now` to `end`, rounded up, at least 1 (the `t` of the `RateLimit` header).
    static func seconds(from now: ContinuousClock.Instant, to end: ContinuousClock.Instant) -> Int {
        let remaining = now.duration(to: end)
        let seconds = Int(remaining.components.seconds) + (remaining.components.attoseconds > 0 ? 1 : 0)
        return max(1, seconds)
    }
}

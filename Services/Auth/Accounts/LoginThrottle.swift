import Foundation
import PostgresNIO
import PostgresSupport
import ServiceDefaults

/// Per-account brake on password guessing, whatever the IP: after `freeFailures` consecutive failures for an
/// address, each further failure locks it for `firstLockout`, doubling up to `maximumLockout`. Counted for
/// unknown addresses too, so a lock says nothing about whether an account exists. A success clears it;
/// a failure streak older than `forgetAfter` starts again.
struct LoginThrottle: Sendable {
    struct Settings: Sendable {
        var freeFailures: Int
        var firstLockout: Duration
        var maximumLockout: Duration
        var forgetAfter: Duration
    }

    let client: PostgresPool
    let settings: Settings
    let logger: Logger

    /// Throws 429 `too_many_attempts` with `Retry-After` while `emailKey` is locked.
    func checkAllowed(_ emailKey: String, now: Date) async throws {
        let rows = try await client.query(
            "SELECT locked_until FROM login_failures WHERE email_key = \(emailKey) AND locked_until > \(now)", logger: logger)
        for try await lockedUntil in rows.decode(Date.self) {
            // timestamptz keeps microseconds, so a lock set at `now + 30 s` can read back up to half a microsecond
            // past it: without the tolerance, Retry-After said 31 about half the time.
            let seconds = max(1, Int((lockedUntil.timeIntervalSince(now) - 0.000_001).rounded(.up)))
            throw APIError(
                .tooManyRequests, code: "too_many_attempts",
                message: "Too many failed sign-ins for this account; try again in \(seconds) seconds.",
                headers: [.retryAfter: String(seconds)])
        }
    }

    /// Records a failed attempt and sets the lock the streak has earned.
    func recordFailure(_ emailKey: String, now: Date) async throws {
        let forgetBefore = now.addingTimeInterval(-settings.forgetAfter.timeInterval)
        let rows = try await client.query(
            """
            INSERT INTO login_failures AS f (email_key, failures, last_failure_at) VALUES (\(emailKey), 1, \(now))
            ON CONFLICT (email_key) DO UPDATE
               SET failures = CASE WHEN f.last_failure_at < \(forgetBefore) THEN 1 ELSE f.failures + 1 END,
                   last_failure_at = \(now)
            RETURNING failures
            """, logger: logger)
        var failures = 0
        for try await count in rows.decode(Int.self) { failures = count }
        if let lockout = lockout(afterFailures: failures) {
            try await client.query(
                "UPDATE login_failures SET locked_until = \(now.addingTimeInterval(lockout.timeInterval)) WHERE email_key = \(emailKey)",
                logger: logger)
        }
    }

    /// Clears the streak after a successful sign-in.
    func recordSuccess(_ emailKey: String) async throws {
        try await client.query("DELETE FROM login_failures WHERE email_key = \(emailKey)", logger: logger)
    }

    /// The lock earned by `failures` consecutive failures, or nil while still within the free attempts.
    func lockout(afterFailures failures: Int) -> Duration? {
        guard failures >= settings.freeFailures else { return nil }
        let doublings = min(failures - settings.freeFailures, 20)
        return min(settings.firstLockout * (1 << doublings), settings.maximumLockout)
    }
}

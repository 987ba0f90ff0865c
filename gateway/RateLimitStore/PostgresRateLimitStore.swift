import Logging
import PostgresNIO
import PostgresSupport

/// The rate-limit windows in the gateway's own PostgreSQL schema (`gateway/Migrations`). Each grant is one
/// `INSERT ... ON CONFLICT DO UPDATE`: PostgreSQL locks the window's row for the update, so racing gateways are
/// served one after another and the sum of their grants never passes the limit. The window's time is the
/// database's, so the gateways' clocks do not matter. Every statement is bounded by `timeout`.
struct PostgresRateLimitStore: RateLimitStore {
    let pool: PostgresPool
    let timeout: Duration
    let migrations: [Migration]
    let logger: Logger

    func take(_ amount: Int, of policy: RateLimitPolicy, key: String) async throws -> RateLimitGrant {
        let window = Double(policy.windowSeconds)
        let limit = policy.limit
        // In SET every `w.` is the row before this statement; a closed window starts again as a new one.
        let query: PostgresQuery = """
            INSERT INTO rate_limit_windows AS w (policy, client_key, closes_at, used, granted)
            VALUES (\(policy.name), \(key), now() + make_interval(secs => \(window)), LEAST(\(amount), \(limit)), LEAST(\(amount), \(limit)))
            ON CONFLICT (policy, client_key) DO UPDATE SET
                closes_at = CASE WHEN w.closes_at <= now() THEN excluded.closes_at ELSE w.closes_at END,
                granted = CASE WHEN w.closes_at <= now() THEN excluded.granted ELSE GREATEST(0, LEAST(\(amount), \(limit) - w.used)) END,
                used = CASE WHEN w.closes_at <= now() THEN excluded.used ELSE w.used + GREATEST(0, LEAST(\(amount), \(limit) - w.used)) END
            RETURNING granted, used, extract(epoch FROM closes_at - now())::float8
            """
        let rows = try await bounded { try await pool.query(query, logger: logger) }
        for try await (granted, used, secondsLeft) in rows.decode((Int, Int, Double).self) {
            return RateLimitGrant(granted: granted, used: used, secondsLeft: secondsLeft)
        }
        throw RateLimitStoreFailure.noAnswer
    }

    func prepare() async throws {
        try await MigrationRunner(client: pool, schema: pool.name, logger: logger).apply(migrations)
    }

    func ping() async throws {
        _ = try await bounded { try await pool.query("SELECT 1", logger: logger) }
    }

    func deleteClosedWindows() async throws -> Int {
        // In slices, so that one statement never holds many row locks or outlasts the time-out.
        var deleted = 0
        while true {
            let rows = try await bounded {
                try await pool.query(
                    """
                    WITH closed AS (SELECT policy, client_key FROM rate_limit_windows WHERE closes_at <= now() LIMIT 5000)
                    DELETE FROM rate_limit_windows w USING closed
                    WHERE w.policy = closed.policy AND w.client_key = closed.client_key AND w.closes_at <= now()
                    RETURNING 1
                    """, logger: logger)
            }
            let count = rows.rows.count
            deleted += count
            if count < 5000 { return deleted }
        }
    }

    /// Runs `statement`, or throws `RateLimitStoreFailure.timedOut` once `timeout` has passed.
    private func bounded<Result: Sendable>(_ statement: @escaping @Sendable () async throws -> Result) async throws -> Result {
        try await withThrowingTaskGroup(of: Result.self) { group in
            group.addTask { try await statement() }
            group.addTask {
                try await Task.sleep(for: timeout)
                throw RateLimitStoreFailure.timedOut
            }
            defer { group.cancelAll() }
            return try await group.next()!
        }
    }
}

import Logging
import PostgresNIO

/// Hands each round of a scheduled job to one replica: a replica runs a round only when it can record its start in
/// `scheduled_jobs` (`Migration.scheduledJobs`) and no replica started one within the job's interval. The check and the
/// record are one statement, so replicas that wake together cannot both win.
public struct ScheduledRounds: Sendable {
    let client: PostgresPool

    /// Rounds recorded in the schema `client` works in.
    public init(client: PostgresPool) {
        self.client = client
    }

    /// True when this replica claimed `job`'s round now (no round of it started within `interval`); false when another
    /// replica runs, or ran, this round.
    public func claim(_ job: String, every interval: Duration, logger: Logger) async throws -> Bool {
        let seconds = interval.timeInterval
        let rows = try await client.query(
            """
            INSERT INTO scheduled_jobs AS job (name, last_started_at) VALUES (\(job), now())
            ON CONFLICT (name) DO UPDATE SET last_started_at = now()
            WHERE job.last_started_at <= now() - \(seconds)::float8 * interval '1 second'
            RETURNING 1
            """, logger: logger)
        return try await rows.decode(Int32.self).first { _ in true } != nil
    }
}

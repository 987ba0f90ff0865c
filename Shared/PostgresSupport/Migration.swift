import Foundation

/// One schema change: a name that sorts in application order, and the SQL to run once.
public struct Migration: Sendable, Equatable {
    public var name: String
    public var sql: String

    public init(name: String, sql: String) {
        self.name = name
        self.sql = sql
    }

    /// Reads every `NNNN_description.sql` in `directory`, sorted by name.
    public static func load(from directory: URL) throws -> [Migration] {
        let files = try FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "sql" }
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
        return try files.map { Migration(name: $0.lastPathComponent, sql: try String(contentsOf: $0, encoding: .utf8)) }
    }

    /// When each scheduled job last started a round on any replica (`kit/0008_scheduled_jobs`), see `ScheduledRounds`.
    public static let scheduledJobs = Migration(
        name: "kit/0008_scheduled_jobs",
        sql: """
            CREATE TABLE scheduled_jobs (
                name            text        PRIMARY KEY,
                last_started_at timestamptz NOT NULL
            );
            """)
}

import Foundation
import Messaging
import PostgresNIO
import PostgresSupport
import Testing

@Suite("Migrations on the real database", .enabled(if: TestEnvironment.isAvailable), .serialized)
struct MigrationRunnerTests {
    let migrations =
        Migration.publishing + [
            Migration(
                name: "0001_notes.sql",
                sql: "CREATE TABLE notes (id bigserial PRIMARY KEY, body text NOT NULL);\nCREATE INDEX notes_body ON notes (body);")
        ]

    /// Runs `body` against an emptied `itest_producer` schema with a runner for it.
    func withEmptySchema(_ body: @Sendable (PostgresPool, MigrationRunner) async throws -> Void) async throws {
        let settings = try TestEnvironment.postgresSettings(schema: "itest_producer")
        try await withPostgres(settings) { client in
            try await emptySchema(client)
            try await body(client, MigrationRunner(client: client, schema: settings.schema, logger: TestEnvironment.logger))
        }
    }

    @Test("applying the same migrations twice changes nothing the second time")
    func appliedTwiceChangesNothing() async throws {
        try await withEmptySchema { client, runner in

            let first = try await runner.apply(migrations)
            try await client.query("INSERT INTO notes (body) VALUES ('kept')")
            let second = try await runner.apply(migrations)

            #expect(first == Migration.publishing.map(\.name) + ["0001_notes.sql"])
            #expect(second.isEmpty)
            let notes = try await client.query("SELECT count(*) FROM notes").decode(Int64.self).first { _ in true }
            #expect(notes == 1)
            let recorded = try await client.query("SELECT count(*) FROM schema_migrations").decode(Int64.self).first { _ in true }
            #expect(recorded == Int64(Migration.publishing.count + 1))
        }
    }

    @Test("runners racing on one schema apply each migration exactly once")
    func concurrentRunnersApplyOnce() async throws {
        try await withEmptySchema { client, runner in
            let applied = try await withThrowingTaskGroup(of: [String].self) { group in
                for _ in 0..<4 { group.addTask { try await runner.apply(migrations) } }
                return try await group.reduce(into: []) { $0 += $1 }
            }
            #expect(applied.sorted() == (Migration.publishing.map(\.name) + ["0001_notes.sql"]).sorted())
        }
    }

    @Test("a failing migration leaves nothing half-applied and is not recorded")
    func failingMigrationRollsBack() async throws {
        try await withEmptySchema { client, runner in
            let broken = Migration(name: "0009_broken.sql", sql: "CREATE TABLE half (id int);\nSELECT no_such_function();")
            await #expect(throws: (any Error).self) { try await runner.apply([broken]) }
            let tables = try await client.query("SELECT count(*) FROM pg_tables WHERE tablename = 'half'").decode(Int64.self).first { _ in true }
            #expect(tables == 0)
        }
    }
}

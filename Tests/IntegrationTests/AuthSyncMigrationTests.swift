import Foundation
import Messaging
import PostgresNIO
import PostgresSupport
import Testing

/// Auth's migration of existing profiles into the changes feed (`0003_profile_sync.sql`), on a schema that already
/// holds accounts: every profile gets a change number and a write stamp, and the users' clocks start at it.
@Suite("Auth's profile-sync migration on existing rows", .enabled(if: TestEnvironment.isAvailable), .serialized)
struct AuthSyncMigrationTests {
    /// Auth's numbered SQL files, read from the source tree.
    static func authMigrations() throws -> [Migration] {
        let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Services/Auth/Migrations")
        return try Migration.load(from: directory)
    }

    @Test("existing profiles are numbered and stamped, and sync_clocks is seeded without moving a clock back")
    func backfill() async throws {
        let settings = try TestEnvironment.postgresSettings(schema: "itest_producer")
        try await withPostgres(settings) { client in
            try await emptySchema(client)
            let runner = MigrationRunner(client: client, schema: settings.schema, logger: TestEnvironment.logger)
            let all = try Self.authMigrations()
            let before = all.filter { $0.name < "0003" }
            try await runner.apply(Migration.publishing + [Migration.sync] + before)

            let (ada, bob) = (UUID(), UUID())
            let updated = Date(timeIntervalSince1970: 1_778_000_000)
            for user in [ada, bob] {
                try await client.query(
                    """
                    INSERT INTO users (id, email, email_key, password_hash, created_at, password_changed_at)
                    VALUES (\(user), \(user.uuidString + "@example.com"), \(user.uuidString.lowercased() + "@example.com"), 'x', \(updated), \(updated))
                    """)
                try await client.query(
                    """
                    INSERT INTO profiles (user_id, display_name, diet_preference, weight_unit, time_zone, version, updated_at)
                    VALUES (\(user), 'Someone', 'balanced', 'kg', 'UTC', 3, \(updated))
                    """)
            }
            // Bob's clock already moved (another area of the same schema would have): it must not go back.
            try await client.query("INSERT INTO sync_clocks (user_id, last_seq) VALUES (\(bob), 7)")

            try await runner.apply(Migration.publishing + [Migration.sync] + all)

            let profiles = try await client.query("SELECT user_id, change_seq, modified_at, modified_tiebreak FROM profiles")
                .collect().map { try $0.decode((UUID, Int64, Date, String).self) }
            #expect(profiles.count == 2)
            #expect(profiles.allSatisfy { $0.1 == 1 && $0.2 == updated && $0.3 == "" })
            let clocks = Dictionary(
                uniqueKeysWithValues: try await client.query("SELECT user_id, last_seq FROM sync_clocks").collect()
                    .map { try $0.decode((UUID, Int64).self) })
            #expect(clocks == [ada: 1, bob: 7])
        }
    }
}

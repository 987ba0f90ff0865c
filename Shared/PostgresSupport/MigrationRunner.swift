import Logging
import PostgresNIO

/// Applies migrations to one schema exactly once each, recorded in `schema_migrations`, under an advisory
/// lock so that replicas starting together do not race.
public struct MigrationRunner: Sendable {
    let client: PostgresPool
    let schema: String
    let logger: Logger

    public init(client: PostgresPool, schema: String, logger: Logger) {
        self.client = client
        self.schema = schema
        self.logger = logger
    }

    /// Applies what is not applied yet, in order; returns the names applied now.
    @discardableResult
    public func apply(_ migrations: [Migration]) async throws -> [String] {
        let lockKey = "nutritionai.migrations.\(schema)"
        return try await client.withConnection { connection in
            try await connection.query("SELECT pg_advisory_lock(hashtext(\(lockKey)))", logger: logger)
            do {
                let applied = try await apply(migrations, on: connection)
                try await connection.query("SELECT pg_advisory_unlock(hashtext(\(lockKey)))", logger: logger)
                return applied
            } catch {
                _ = try? await connection.query("SELECT pg_advisory_unlock(hashtext(\(lockKey)))", logger: logger)
                throw error
            }
        }
    }

    private func apply(_ migrations: [Migration], on connection: PostgresConnection) async throws -> [String] {
        try await connection.query(
            """
            CREATE TABLE IF NOT EXISTS schema_migrations (
                name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())
            """, logger: logger)
        var done = Set<String>()
        for try await name in try await connection.query("SELECT name FROM schema_migrations", logger: logger).decode(String.self) {
            done.insert(name)
        }
        var appliedNow: [String] = []
        for migration in migrations where !done.contains(migration.name) {
            try await connection.withTransaction(logger: logger) { transaction in
                try await transaction.query(Self.wrapped(migration), logger: logger)
                try await transaction.query("INSERT INTO schema_migrations (name) VALUES (\(migration.name))", logger: logger)
            }
            logger.info("migration applied", metadata: ["schema": .string(schema), "migration": .string(migration.name)])
            appliedNow.append(migration.name)
        }
        return appliedNow
    }

    /// Runs a file of several statements as one: the extended protocol accepts only one statement, so the
    /// file becomes the body of a `DO` block that executes it dynamically.
    static func wrapped(_ migration: Migration) throws -> PostgresQuery {
        let bodyTag = "$nutritionai_migration_body$"
        let blockTag = "$nutritionai_migration$"
        guard !migration.sql.contains(bodyTag), !migration.sql.contains(blockTag) else {
            throw MigrationError.reservedTag(migration.name)
        }
        return PostgresQuery(unsafeSQL: "DO \(blockTag) BEGIN EXECUTE \(bodyTag)\(migration.sql)\(bodyTag); END \(blockTag)")
    }
}

/// A migration that cannot be applied as written.
public enum MigrationError: Error, CustomStringConvertible {
    case reservedTag(String)

    public var description: String {
        switch self {
        case .reservedTag(let name): "migration \(name) uses a dollar-quote tag reserved by the runner"
        }
    }
}

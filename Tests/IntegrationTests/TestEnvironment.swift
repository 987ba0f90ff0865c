import Foundation
import Kafka
import Logging
import PostgresNIO
import PostgresSupport
import TestSupport

/// The real PostgreSQL and broker that `deploy/test` started, and control over them for fault tests.
enum TestEnvironment {
    static let environment = ProcessInfo.processInfo.environment

    /// Integration tests run only under `deploy/test`, which exports where the infrastructure is.
    static var isAvailable: Bool { environment["NUTRITION_INFRA_SCRIPT"] != nil }

    /// Logs at `warning` and above, or at `NUTRITION_TEST_LOG_LEVEL` (`debug`, `info`, `notice`, ...) when set.
    static let logger: Logger = {
        var logger = Logger(label: "integration-tests")
        logger.logLevel = environment["NUTRITION_TEST_LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:)) ?? .warning
        return logger
    }()

    /// The USDA table the setup step converts (`NUTRITION_FOOD_DATA_FILE`, else `.local/foods/usda_sr24.jsonl`).
    static var foodDataFile: URL {
        if let path = environment["NUTRITION_FOOD_DATA_FILE"] { return URL(fileURLWithPath: path) }
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        return repository.appendingPathComponent(".local/foods/usda_sr24.jsonl")
    }

    static var brokers: String { "127.0.0.1:\(environment["NUTRITION_BROKER_PORT"] ?? "19092")" }

    /// Settings to reach a test schema as its own role (`itest_producer`, `itest_consumer`).
    static func postgresSettings(schema: String) throws -> PostgresSettings {
        let role = "\(schema)_service"
        let passwordFile = "\(environment["NUTRITION_LOCAL_DIR"] ?? ".local")/secrets/\(role).password"
        let password = try String(contentsOfFile: passwordFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        let config = ConfigReaderFactory.make([
            "postgres.port": environment["NUTRITION_PG_PORT"] ?? "15432",
            "postgres.database": environment["NUTRITION_PG_DATABASE"] ?? "nutritionai",
            "postgres.password": password,
            "postgres.pool.min": "0",
            "postgres.connect.timeout.seconds": "2",
        ])
        return try PostgresSettings(config: config, defaultSchema: schema, defaultUser: role)
    }

    /// The configuration every service under test shares: its schema as its own role, the broker, a quick outbox.
    static func serviceConfig(_ settings: PostgresSettings, schema: String) -> [String: String] {
        [
            "postgres.port": String(settings.port), "postgres.database": settings.database, "postgres.user": settings.username,
            "postgres.password": settings.password, "postgres.schema": schema, "postgres.pool.min": "0",
            "kafka.brokers": brokers, "outbox.poll.interval.seconds": "1",
            // A test's consumer groups are never used again: a stopping service does not wait to leave them (about
            // 1 s per consumer with partitions, most of each test's teardown).
            "kafka.consumer.close.wait.seconds": "0",
            "kafka.session.timeout.seconds": "1.5",
        ]
    }

    /// Runs `deploy/infra.sh <command>` (e.g. `restart-broker`, `stop-postgres`) and fails if it fails.
    /// Spawned and reaped directly: Foundation's `Process.waitUntilExit` can hang under Swift concurrency.
    static func infra(_ command: String) throws {
        let arguments = ["/bin/bash", environment["NUTRITION_INFRA_SCRIPT"]!, command]
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        var pid: pid_t = 0
        let argv = arguments.map { strdup($0) } + [nil]
        defer { for argument in argv { free(argument) } }
        let spawned = posix_spawn(&pid, "/bin/bash", &actions, nil, argv, environ)
        guard spawned == 0 else { throw InfraError(command: command, status: spawned) }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        let exitCode = (status >> 8) & 0xff
        guard exitCode == 0 else { throw InfraError(command: command, status: exitCode) }
    }

    /// Polls `condition` every 200 ms until it holds or `timeout` passes; returns whether it held.
    static func eventually(timeout: Duration, _ condition: () async throws -> Bool) async throws -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if try await condition() { return true }
            try await Task.sleep(for: .milliseconds(200))
        }
        return try await condition()
    }

    /// `work`'s result, or nil when `limit` passes first (the work is then cancelled): for answers that only an event
    /// ends sooner than their own timeout.
    static func result<T: Sendable>(of work: @escaping @Sendable () async throws -> T, within limit: Duration) async throws -> T? {
        try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask { try await work() }
            group.addTask {
                try await Task.sleep(for: limit)
                return nil
            }
            defer { group.cancelAll() }
            return try await group.next() ?? nil
        }
    }
}

/// How many rows of `table` in the client's schema belong to `userId` (purge checks).
func userRows(in table: String, of userId: UUID, client: PostgresPool) async throws -> Int {
    let rows = try await client.query("SELECT count(*) FROM \(unescaped: table) WHERE user_id = \(userId)", logger: TestEnvironment.logger)
    for try await count in rows.decode(Int.self) { return count }
    return 0
}

/// Empties the client's schema so a test starts from nothing: drops every table and function, so the service under test
/// migrates it again. The one exception is the meals schema once the USDA table was imported into it (about 3 s of
/// every meals start): there every other table is emptied instead, and the migrated schema and the food table stay.
func emptySchema(_ client: PostgresPool) async throws {
    let holdsFoods =
        try await client.query(
            "SELECT to_regclass('food_imports') IS NOT NULL AND to_regclass('schema_migrations') IS NOT NULL", logger: TestEnvironment.logger
        ).decode(Bool.self).first { _ in true } ?? false
    if holdsFoods, try await client.query("SELECT 1 FROM food_imports", logger: TestEnvironment.logger).collect().isEmpty == false {
        try await client.query(
            """
            DO $$ DECLARE tables text; BEGIN
                SELECT string_agg(format('%I', tablename), ', ') INTO tables FROM pg_tables
                WHERE schemaname = current_schema() AND tablename NOT IN ('foods', 'food_imports', 'schema_migrations');
                IF tables IS NOT NULL THEN EXECUTE 'TRUNCATE ' || tables || ' RESTART IDENTITY CASCADE'; END IF;
            END $$
            """, logger: TestEnvironment.logger)
        return
    }
    try await client.query(
        """
        DO $$ DECLARE item record; BEGIN
            FOR item IN SELECT tablename FROM pg_tables WHERE schemaname = current_schema() LOOP
                EXECUTE format('DROP TABLE %I CASCADE', item.tablename);
            END LOOP;
            FOR item IN SELECT oid::regprocedure AS signature FROM pg_proc WHERE pronamespace = current_schema()::regnamespace LOOP
                EXECUTE format('DROP FUNCTION %s CASCADE', item.signature);
            END LOOP;
        END $$
        """, logger: TestEnvironment.logger)
}

/// `deploy/infra.sh` failed.
struct InfraError: Error {
    var command: String
    var status: Int32
}

/// Runs `body` with a started `PostgresPool`, and shuts the client down afterwards.
func withPostgres<T: Sendable>(_ settings: PostgresSettings, _ body: @Sendable (PostgresPool) async throws -> T) async throws -> T {
    let client = PostgresPool(settings: settings, logger: TestEnvironment.logger)
    return try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask {
            await client.run()
            return nil
        }
        defer { group.cancelAll() }
        return try await body(client)
    }
}

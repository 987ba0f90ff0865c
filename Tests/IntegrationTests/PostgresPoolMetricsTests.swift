import Foundation
import MetricsTestKit
import PostgresNIO
import Testing

@testable import PostgresSupport

/// The pool's gauges against the real database. Open connections come from postgres-nio's own connection messages
/// (`PostgresPoolObserver`): if an upgrade renames them, the checks of `idle` here fail.
@Suite("Postgres pool metrics on the real database", .enabled(if: TestEnvironment.isAvailable), .serialized)
struct PostgresPoolMetricsTests {
    struct Gauges {
        let inUse: TestRecorder
        let idle: TestRecorder
        let waiters: TestRecorder

        init(_ metrics: TestMetrics, pool: String) throws {
            inUse = try metrics.expectGauge("postgres_pool_connections", [("pool", pool), ("state", "in_use")])
            idle = try metrics.expectGauge("postgres_pool_connections", [("pool", pool), ("state", "idle")])
            waiters = try metrics.expectGauge("postgres_pool_waiters", [("pool", pool)])
        }

        /// (in use, idle, waiters) as the gauges show them now.
        var now: [Double?] { [inUse.lastValue, idle.lastValue, waiters.lastValue] }
    }

    /// A pool of at most one connection on `itest_producer`, running while `body` runs.
    func withPool(metrics: TestMetrics, _ body: @Sendable (PostgresPool, Gauges) async throws -> Void) async throws {
        var settings = try TestEnvironment.postgresSettings(schema: "itest_producer")
        settings.maximumConnections = 1
        let pool = PostgresPool(settings: settings, logger: TestEnvironment.logger, metrics: metrics)
        let gauges = try Gauges(metrics, pool: "itest_producer")
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await pool.run() }
            defer { group.cancelAll() }
            try await body(pool, gauges)
        }
    }

    @Test("a held connection is in use, a query behind it waits, and both end idle; the ceiling is published")
    func leasesAndWaiters() async throws {
        let metrics = TestMetrics()
        try await withPool(metrics: metrics) { pool, gauges in
            #expect(gauges.now == [0, 0, 0])
            #expect(try metrics.expectGauge("postgres_pool_connections_max", [("pool", "itest_producer")]).lastValue == 1)
            let (held, heldSignal) = AsyncStream.makeStream(of: Void.self)
            let (release, releaseSignal) = AsyncStream.makeStream(of: Void.self)
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    try await pool.withConnection { connection in
                        try await connection.query("SELECT 1", logger: TestEnvironment.logger)
                        heldSignal.yield()
                        for await _ in release { break }
                    }
                }
                for await _ in held { break }
                #expect(gauges.now == [1, 0, 0])
                group.addTask { try await pool.query("SELECT 2") }
                #expect(try await TestEnvironment.eventually(timeout: .seconds(10)) { gauges.waiters.lastValue == 1 })
                #expect(gauges.now == [1, 0, 1])
                releaseSignal.yield()
                try await group.waitForAll()
            }
            #expect(gauges.now == [0, 1, 0])
            #expect(pool.usage.current.open.count == 1)
        }
    }

    @Test("a caller who stops waiting leaves the waiters; a connection the server drops leaves the idle count")
    func abandonedWaitAndDroppedConnection() async throws {
        let metrics = TestMetrics()
        try await withPool(metrics: metrics) { pool, gauges in
            let (held, heldSignal) = AsyncStream.makeStream(of: Int32.self)
            let (release, releaseSignal) = AsyncStream.makeStream(of: Void.self)
            let backend = try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    try await pool.withConnection { connection in
                        let rows = try await connection.query("SELECT pg_backend_pid()", logger: TestEnvironment.logger)
                        for try await pid in rows.decode(Int32.self) { heldSignal.yield(pid) }
                        for await _ in release { break }
                    }
                }
                var backend: Int32 = 0
                for await pid in held {
                    backend = pid
                    break
                }
                let waiting = Task { try await pool.query("SELECT 3") }
                #expect(try await TestEnvironment.eventually(timeout: .seconds(10)) { gauges.waiters.lastValue == 1 })
                waiting.cancel()
                _ = try? await waiting.value
                #expect(try await TestEnvironment.eventually(timeout: .seconds(10)) { gauges.waiters.lastValue == 0 })
                #expect(gauges.inUse.lastValue == 1)
                releaseSignal.yield()
                try await group.waitForAll()
                return backend
            }
            #expect(gauges.now == [0, 1, 0])

            // The same role may end its own sessions; a pool of its own, so the one connection above stays idle.
            let killer = PostgresPool(
                settings: try TestEnvironment.postgresSettings(schema: "itest_producer"), logger: TestEnvironment.logger, metrics: TestMetrics())
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { await killer.run() }
                defer { group.cancelAll() }
                let ended = try await killer.query("SELECT pg_terminate_backend(\(backend))").decode(Bool.self).first { _ in true }
                #expect(ended == true)
            }
            #expect(try await TestEnvironment.eventually(timeout: .seconds(10)) { gauges.idle.lastValue == 0 })
            #expect(pool.usage.current.open.isEmpty)
            #expect(gauges.now == [0, 0, 0])
        }
    }
}

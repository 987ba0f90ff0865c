import Foundation
import PostgresNIO
import ServiceDefaults
import Testing

@testable import PostgresSupport

/// Transactions of `PostgresPool` against the real database, when the server ends the session under them.
@Suite("Postgres pool transactions on the real database", .enabled(if: TestEnvironment.isAvailable), .serialized)
struct PostgresPoolTransactionTests {
    /// A pool of at most one connection on `itest_producer`, so the retry must run on a new connection.
    func withPool(_ body: @Sendable (PostgresPool) async throws -> Void) async throws {
        var settings = try TestEnvironment.postgresSettings(schema: "itest_producer")
        settings.maximumConnections = 1
        let pool = PostgresPool(settings: settings, logger: TestEnvironment.logger)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await pool.run() }
            defer { group.cancelAll() }
            try await body(pool)
        }
    }

    /// Runs `operation` in a task and waits for it for at most `limit`; nil when it is still running (it hangs).
    func outcome<T: Sendable>(within limit: Duration, _ operation: @escaping @Sendable () async throws -> T) async -> Result<T, any Error>? {
        let (outcomes, report) = AsyncStream.makeStream(of: Result<T, any Error>?.self)
        let work = Task {
            do { report.yield(.success(try await operation())) } catch { report.yield(.failure(error)) }
        }
        let timer = Task {
            try? await Task.sleep(for: limit)
            report.yield(nil)
        }
        defer { timer.cancel() }
        for await first in outcomes {
            if first == nil { work.cancel() }
            return first
        }
        return nil
    }

    /// What the transaction's body does once its session is gone: returns (so the pool would COMMIT) or throws (ROLLBACK).
    enum BodyEnding: CaseIterable, Sendable { case returns, throwsItsOwnError }

    @Test(
        "a transaction whose session is terminated while its body works fails at once, and the next one succeeds",
        arguments: BodyEnding.allCases)
    func sessionTerminatedWhileBodyWorks(_ ending: BodyEnding) async throws {
        try await withPool { pool in
            try await withPool { admin in
                let (backend, reportBackend) = AsyncStream.makeStream(of: Int32.self)
                let terminated = Task {
                    await outcome(within: .seconds(30)) {
                        try await pool.transaction(logger: TestEnvironment.logger) { connection in
                            let pid = try await connection.query("SELECT pg_backend_pid()", logger: TestEnvironment.logger)
                                .decode(Int32.self).first { _ in true }
                            reportBackend.yield(pid ?? 0)
                            // The server ends the session while the body works; postgres-nio 1.33 never answers a query
                            // written to the closed connection, which is what the pool must not do next.
                            _ = try await TestEnvironment.eventually(timeout: .seconds(20)) { connection.isClosed }
                            try await Task.sleep(for: .milliseconds(200))
                            if ending == .throwsItsOwnError { throw BodyFailure() }
                        }
                    }
                }
                var pid: Int32 = 0
                for await reported in backend {
                    pid = reported
                    break
                }
                try await admin.query("SELECT pg_terminate_backend(\(pid))")

                let result = try #require(await terminated.value, "the transaction on the terminated session never finished")
                #expect(throws: (any Error).self) { try result.get() }
                if case .failure(let error) = result {
                    switch ending {
                    case .returns: #expect(error is PostgresConnectionLost, "\(String(reflecting: error))")
                    case .throwsItsOwnError: #expect(error is BodyFailure, "\(String(reflecting: error))")
                    }
                }
                let next = await outcome(within: .seconds(30)) {
                    try await pool.transaction(logger: TestEnvironment.logger) { connection in
                        try await connection.query("SELECT 1", logger: TestEnvironment.logger).decode(Int.self).first { _ in true }
                    }
                }
                #expect(try #require(next, "the next transaction never finished").get() == 1)
            }
        }
    }

    struct BodyFailure: Error {}
}

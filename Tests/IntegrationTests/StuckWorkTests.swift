import PostgresNIO
import PostgresSupport
import Testing

/// Work waiting on a database connection lost under it is given up, so that an outbox relay publishes again after a
/// PostgreSQL restart and still stops when asked. postgres-nio 1.33 never answers a query written to a connection
/// that has already closed: before `abandoningIfStuck`, meals' relay published nothing after a restart until the
/// service was restarted, and its shutdown then waited past the drain.
@Suite("Work stuck on a lost database connection", .enabled(if: TestEnvironment.isAvailable), .serialized)
struct StuckWorkTests {
    @Test("a query written to a connection the server ended is abandoned with PostgresConnectionLost, and the pool serves again")
    func abandonsWorkOnALostConnection() async throws {
        let settings = try TestEnvironment.postgresSettings(schema: "itest_producer")
        try await withPostgres(settings) { client in
            let outcome = try await withThrowingTaskGroup(of: String.self) { group in
                group.addTask {
                    do {
                        try await client.abandoningIfStuck(grace: .milliseconds(500)) {
                            try await client.withConnection { connection in
                                let pid =
                                    try await connection.query("SELECT pg_backend_pid()", logger: TestEnvironment.logger)
                                    .decode(Int32.self).first { _ in true } ?? 0
                                // Ended by the server, as a restart ends every session.
                                try await client.query("SELECT pg_terminate_backend(\(pid))")
                                while !connection.isClosed { try await Task.sleep(for: .milliseconds(20)) }
                                try await connection.query("SELECT 1", logger: TestEnvironment.logger)
                            }
                        }
                        return "finished"
                    } catch is PostgresConnectionLost {
                        return "abandoned"
                    } catch  where PostgresConnectionLost.isLoss(error) {
                        // postgres-nio answers the query after all when it sees the close first: as good, nothing hangs.
                        return "abandoned"
                    } catch {
                        return "failed: \(String(reflecting: error))"
                    }
                }
                // A bound for the test itself: without the guard the work above never ends.
                group.addTask {
                    try await Task.sleep(for: .seconds(30))
                    return "still waiting after 30 s"
                }
                let first = try await group.next() ?? ""
                group.cancelAll()
                return first
            }
            #expect(outcome == "abandoned")
            let one = try await client.query("SELECT 1").decode(Int.self).first { _ in true }
            #expect(one == 1)
        }
    }
}

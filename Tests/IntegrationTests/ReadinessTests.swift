import PostgresNIO
import PostgresSupport
import Testing

@Suite("Readiness follows the real database", .enabled(if: TestEnvironment.isAvailable), .serialized)
struct ReadinessTests {
    @Test("readiness turns false while Postgres is down and true again once it returns, with the same client")
    func readinessFollowsPostgres() async throws {
        let settings = try TestEnvironment.postgresSettings(schema: "itest_producer")
        try await withPostgres(settings) { client in
            let check = PostgresReadinessCheck(client: client, timeout: .seconds(1))
            #expect(await check.isReady())

            try TestEnvironment.infra("stop-postgres")
            do {
                let wentDown = try await TestEnvironment.eventually(timeout: .seconds(15)) { await !check.isReady() }
                #expect(wentDown, "readiness stayed true with the database stopped")
            } catch {
                try TestEnvironment.infra("start-postgres")
                throw error
            }
            try TestEnvironment.infra("start-postgres")

            let cameBack = try await TestEnvironment.eventually(timeout: .seconds(30)) { await check.isReady() }
            #expect(cameBack, "readiness did not recover after the database returned")
        }
    }
}

import EventContracts
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import ServiceDefaults
import Testing

@testable import TrendsService
@testable import TrendsTesting

/// Every figure about the same days agrees, for seeded users whose calendar is hard (`CalendarScenario`): the trends read
/// models on PostgreSQL and the in-memory fake are fed the same events, and for each weekday in turn as today the
/// dashboard's answers from both must be the same, and must say what the scenario's truth says: stats (`today`, `week`
/// from the profile's `weekStart`, `allTime`), a day's history, summaries of a range, trends 7/30/90, progress, the
/// calendar and the streaks.
///
/// A failure names its seed; `NUTRITION_CONSISTENCY_SEEDS=17` (or `1-500`) replays one seed or runs more.
@Suite("Every figure agrees", .serialized, .enabled(if: TestEnvironment.isAvailable))
struct FigureConsistencyTests {
    /// The seeds the test command runs; the environment may name others.
    static var seeds: ClosedRange<UInt64> {
        guard let text = TestEnvironment.environment["NUTRITION_CONSISTENCY_SEEDS"] else { return 1...20 }
        let bounds = text.split(separator: "-").compactMap { UInt64($0) }
        return (bounds.first ?? 1)...(bounds.last ?? 1)
    }

    @Test("the read models on PostgreSQL and in memory agree with each other and with the truth, each weekday as today")
    func readModels() async throws {
        try await ProjectionStack.run(start: Date()) { stack in
            let handler = TrendsEventHandler(
                meals: MealProjection(), summaries: DaySummaryProjection(), bodyMetrics: BodyMetricsProjection(), water: WaterProjection(),
                profiles: ProfileProjection(), versions: DataVersionProjection())
            for seed in Self.seeds {
                let scenario = CalendarScenario(seed: seed)
                let fake = InMemoryTrendsStore()
                for event in scenario.events { fake.apply(event) }
                // In batches, as the inbox applies them (the batch path ends as event by event does:
                // TrendsBatchProjectionTests).
                let received = try scenario.events.map { try ProjectionReplay.event($0, of: scenario.userId) }
                for start in stride(from: 0, to: received.count, by: 100) {
                    try await stack.database.transaction(logger: TestEnvironment.logger) { connection in
                        try await handler.handle(
                            batch: Array(received[start..<min(start + 100, received.count)]), on: connection, logger: TestEnvironment.logger)
                    }
                }
                let postgres = PostgresTrendsStore(client: stack.database)
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for now in scenario.nows {
                        group.addTask {
                            try await Self.withDashboards(postgres, fake, now: now) { dashboards in
                                try await FigureChecks(
                                    scenario: scenario, today: CalendarDate(now, in: scenario.zone), opensPastDays: now == scenario.nows[0]
                                ) {
                                    uri in
                                    try await dashboards.get(uri, as: scenario.userId, seed: seed)
                                }.run()
                            }
                        }
                    }
                    try await group.waitForAll()
                }
            }
        }
    }

    /// The dashboard routes over each store, at `now`.
    static func withDashboards(
        _ postgres: any TrendsStore, _ memory: any TrendsStore, now: Date, _ body: @Sendable (Dashboards) async throws -> Void
    ) async throws {
        @Sendable func application(_ store: any TrendsStore) -> some ApplicationProtocol {
            let router = ServiceRuntime.makeRouter(service: "trends", checks: [])
            TrendsRoutes(store: store, reportCacheUsers: 10, photos: nil, now: { now }).addRoutes(to: router)
            return Application(router: router)
        }
        try await application(postgres).test(.router) { postgresClient in
            try await application(memory).test(.router) { memoryClient in
                try await body(Dashboards(postgres: postgresClient, memory: memoryClient))
            }
        }
    }
}

/// The same dashboard served from PostgreSQL and from memory.
struct Dashboards: Sendable {
    let postgres: any TestClientProtocol
    let memory: any TestClientProtocol

    /// `GET uri` as `userId` from both: the answers must be the same JSON; the PostgreSQL one is returned.
    func get(_ uri: String, as userId: UUID, seed: UInt64) async throws -> Data {
        let headers: HTTPFields = [CallerIdentity.userIdHeader: userId.uuidString, CallerIdentity.sessionIdHeader: UUID().uuidString]
        let fromPostgres = try await postgres.execute(uri: uri, method: .get, headers: headers, body: nil)
        let fromMemory = try await memory.execute(uri: uri, method: .get, headers: headers, body: nil)
        #expect(fromPostgres.status == .ok, "seed \(seed): \(uri) answered \(fromPostgres.status): \(String(buffer: fromPostgres.body))")
        let postgresJSON = try JSONDecoder().decode(JSONValue.self, from: Data(buffer: fromPostgres.body))
        let memoryJSON = try JSONDecoder().decode(JSONValue.self, from: Data(buffer: fromMemory.body))
        #expect(
            postgresJSON == memoryJSON,
            "seed \(seed): \(uri) differs between PostgreSQL and the in-memory store:\n\(String(buffer: fromPostgres.body))\n\(String(buffer: fromMemory.body))"
        )
        return Data(buffer: fromPostgres.body)
    }
}

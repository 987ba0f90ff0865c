import Configuration
import EventContracts
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Kafka
import PostgresNIO
import PostgresSupport
import ServiceDefaults
import TestSupport
import Testing

@testable import TrendsService

/// The real trends service (schema itest_trends, the real broker) fed by events the test publishes itself,
/// so it can redeliver, reorder and delay them at will; routes are called directly, with the identity
/// headers the gateway would add.
struct ProjectionStack: Sendable {
    let trends: any TestClientProtocol
    let producer: KafkaProducer
    let database: PostgresPool
    let clock: TestClock

    static func run(start: Date, _ body: @Sendable (ProjectionStack) async throws -> Void) async throws {
        let clock = TestClock(start)
        var values = try await TestServices.config(schema: "itest_trends")
        let group = "itest-projection-\(UUID().uuidString.prefix(8))"
        try ConsumerGroupStart.atEnd(group: group)
        values["trends.consumer.group"] = group
        let trends = try TrendsService.buildApplication(
            config: ConfigReaderFactory.make(values), logger: TestEnvironment.logger, now: { clock.now() })
        let producer = try KafkaProducer(
            configuration: KafkaConfiguration(bootstrapServers: TestEnvironment.brokers, clientId: "itest-events"),
            logger: TestEnvironment.logger)
        try await withRunning(trends.infrastructure.services + trends.services + [producer]) {
            try await TestServices.live([("trends", trends)]) { clients in
                try await body(
                    ProjectionStack(trends: clients["trends"]!, producer: producer, database: trends.infrastructure.postgres, clock: clock))
            }
        }
    }

    /// Publishes `payload` as an event of `userId` (with `id` to redeliver an earlier one); returns the event id.
    @discardableResult
    func publish<Payload: EventPayload>(_ payload: Payload, userId: UUID, id: UUID = UUID()) async throws -> UUID {
        let envelope = EventEnvelope(source: "itest", subject: userId.uuidString.lowercased(), data: payload, id: id)
        _ = try await producer.send(
            OutgoingMessage(topic: Payload.topic.rawValue, key: envelope.subject, value: try EventCoding.encode(envelope)))
        return id
    }

    /// Waits until the trends inbox holds every one of `ids` (each applied or recognised as a duplicate).
    func awaitApplied(_ ids: [UUID], timeout: Duration = .seconds(30)) async throws {
        let wanted = Set(ids)
        let applied = try await TestEnvironment.eventually(timeout: timeout) {
            let rows = try await database.query("SELECT event_id FROM inbox WHERE event_id = ANY(\(Array(wanted)))", logger: TestEnvironment.logger)
            var seen = Set<UUID>()
            for try await id in rows.decode(UUID.self) { seen.insert(id) }
            return seen == wanted
        }
        #expect(applied, "the trends service did not apply every published event in time")
    }

    /// `GET uri` as `userId`, decoded.
    func get<Answer: Decodable>(_ uri: String, as userId: UUID, _ type: Answer.Type) async throws -> Answer {
        let headers: HTTPFields = [CallerIdentity.userIdHeader: userId.uuidString, CallerIdentity.sessionIdHeader: UUID().uuidString]
        let response = try await trends.execute(uri: uri, method: .get, headers: headers, body: nil)
        #expect(response.status == .ok, "\(uri) answered \(response.status): \(String(buffer: response.body))")
        return try response.decoded(Answer.self)
    }
}

/// Meal snapshots as the meals service would publish them, with only what the tests vary.
enum TestMeals {
    static func snapshot(
        _ mealId: UUID, of userId: UUID, on day: String, calories: Double, consumed: Bool = true, version: Int, dietScore: Int = 70,
        healthScore: Int = 75, title: String = "Test meal", eatenAt: Date? = nil, timeZone: String = "UTC"
    ) -> MealSnapshot {
        let start = CalendarDate(day)!.start(in: TimeZone(identifier: timeZone)!).addingTimeInterval(12 * 3600)
        let totals = NutrientTotals(
            calories: calories, proteinGrams: calories * 0.25 / 4, carbsGrams: calories * 0.45 / 4, fatGrams: calories * 0.30 / 9,
            fiberGrams: 5)
        return MealSnapshot(
            mealId: mealId, userId: userId, title: title, origin: "manual", mealType: "lunch", captureKind: "full_meal",
            eatenAt: eatenAt ?? start, localDate: day, timeZone: timeZone, isConsumed: consumed, edited: version > 1, notes: nil,
            hasPhoto: false,
            items: [
                MealSnapshotItem(
                    name: title, amount: 1, unit: "serving", grams: 300, nutrients: totals, healthScore: healthScore,
                    healthRating: HealthRating(score: healthScore).rawValue, source: "manual")
            ],
            totals: totals, healthScore: healthScore, healthRating: HealthRating(score: healthScore).rawValue, dietPreference: "balanced",
            dietScore: dietScore, dietBand: dietScore >= 80 ? "green" : dietScore >= 60 ? "yellow" : "red",
            dietExplanation: "Test.", version: version)
    }
}

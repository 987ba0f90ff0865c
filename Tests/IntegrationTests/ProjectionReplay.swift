import EventContracts
import Foundation
import Messaging
import PostgresNIO

@testable import PostgresSupport
@testable import TrendsService

/// Applies a scenario of trends events straight to the handler twice, once event by event and once batch by batch,
/// each time with fresh user and meal ids, and reads back the read models with those ids replaced by their place
/// in the scenario, so that the two end states can be compared.
struct ProjectionReplay {
    /// The ids one run of a scenario uses.
    struct Ids {
        let users: [UUID]
        let meals: [UUID]
    }

    let database: PostgresPool
    let handler = TrendsEventHandler(
        meals: MealProjection(), summaries: DaySummaryProjection(), bodyMetrics: BodyMetricsProjection(), water: WaterProjection(),
        profiles: ProfileProjection(), versions: DataVersionProjection())

    /// The end states of `scenario` (batches in order) applied event by event, then batch by batch.
    func endStates(_ scenario: (Ids) throws -> [[ReceivedEvent]]) async throws -> (oneByOne: [String], batched: [String]) {
        let single = Self.freshIds()
        for batch in try scenario(single) {
            for event in batch {
                try await database.transaction(logger: TestEnvironment.logger) { connection in
                    try await handler.handle(event, on: connection, logger: TestEnvironment.logger)
                }
            }
        }
        let batched = Self.freshIds()
        for batch in try scenario(batched) {
            try await database.transaction(logger: TestEnvironment.logger) { connection in
                try await handler.handle(batch: batch, on: connection, logger: TestEnvironment.logger)
            }
        }
        return (try await state(of: single), try await state(of: batched))
    }

    /// An event as the inbox hands it over.
    static func event<Payload: EventPayload>(_ payload: Payload, of userId: UUID) throws -> ReceivedEvent {
        let bytes = try EventCoding.encode(EventEnvelope(source: "itest", subject: userId.uuidString.lowercased(), data: payload))
        return ReceivedEvent(header: try EventCoding.header(of: bytes), bytes: bytes, traceparent: nil)
    }

    private static func freshIds() -> Ids {
        Ids(users: (0..<3).map { _ in UUID() }, meals: (0..<8).map { _ in UUID() })
    }

    /// Every row of the users in `meals`, `daily_summaries`, `body_metrics`, `water_days`, `user_profiles` and `deleted_users`,
    /// as sorted lines with the ids written as `user0`, `meal3`...
    private func state(of ids: Ids) async throws -> [String] {
        let rows = try await database.query(
            """
            SELECT concat_ws('|', 'meal', meal_id, user_id, version, has_state, deleted, is_consumed, local_date, eaten_at, title,
                meal_type, calories, protein, carbs, fat, fiber, health_score, health_rating, diet_score, diet_band, snapshot)
            FROM meals WHERE user_id = ANY(\(ids.users))
            UNION ALL SELECT concat_ws('|', 'day', user_id, day, consumed_count, scanned_count, calories, protein, carbs, fat, fiber,
                diet_score_mean, health_score_mean)
            FROM daily_summaries WHERE user_id = ANY(\(ids.users))
            UNION ALL SELECT concat_ws('|', 'weight', user_id, day, weight_kg, ketones, version) FROM body_metrics WHERE user_id = ANY(\(ids.users))
            UNION ALL SELECT concat_ws('|', 'water', user_id, day, millilitres, entry_count, version) FROM water_days WHERE user_id = ANY(\(ids.users))
            UNION ALL SELECT concat_ws('|', 'profile', user_id, time_zone, version) FROM user_profiles WHERE user_id = ANY(\(ids.users))
            UNION ALL SELECT concat_ws('|', 'deleted', user_id) FROM deleted_users WHERE user_id = ANY(\(ids.users))
            """, logger: TestEnvironment.logger)
        var lines: [String] = []
        for try await line in rows.decode(String.self) {
            var named = line
            for (index, id) in ids.users.enumerated() { named = Self.replace(id, with: "user\(index)", in: named) }
            for (index, id) in ids.meals.enumerated() { named = Self.replace(id, with: "meal\(index)", in: named) }
            lines.append(named)
        }
        return lines.sorted()
    }

    private static func replace(_ id: UUID, with name: String, in line: String) -> String {
        line.replacingOccurrences(of: id.uuidString, with: name).replacingOccurrences(of: id.uuidString.lowercased(), with: name)
    }
}

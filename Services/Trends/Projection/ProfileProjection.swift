import EventContracts
import Foundation
import Logging
import PostgresNIO
import ServiceDefaults

/// The `user_profiles` read model from `user.profile_updated`, newest version wins.
/// Every query logs to the consumer's `logger`.
struct ProfileProjection: Sendable {
    func apply(_ event: UserProfileUpdated, on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query(
            """
            INSERT INTO user_profiles (user_id, time_zone, weight_unit, daily_calorie_goal, calorie_balance_goal, target_weight_kg,
                height_cm, birth_date, sex, activity_level, version)
            VALUES (\(event.userId), \(event.timeZone), \(event.weightUnit), \(event.dailyCalorieGoal), \(event.calorieBalanceGoal),
                \(event.targetWeightKg), \(event.heightCm), \(event.birthDate), \(event.sex), \(event.activityLevel), \(event.version))
            ON CONFLICT (user_id) DO UPDATE SET time_zone = EXCLUDED.time_zone, weight_unit = EXCLUDED.weight_unit,
                daily_calorie_goal = EXCLUDED.daily_calorie_goal, calorie_balance_goal = EXCLUDED.calorie_balance_goal,
                target_weight_kg = EXCLUDED.target_weight_kg, height_cm = EXCLUDED.height_cm, birth_date = EXCLUDED.birth_date,
                sex = EXCLUDED.sex, activity_level = EXCLUDED.activity_level, version = EXCLUDED.version
            WHERE user_profiles.version < EXCLUDED.version
            """, logger: logger)
    }

    func deleteAll(userId: UUID, on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query("DELETE FROM user_profiles WHERE user_id = \(userId)", logger: logger)
    }
}

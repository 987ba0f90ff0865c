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
                height_cm, birth_date, sex, activity_level, daily_water_goal_ml, week_start, version)
            VALUES (\(event.userId), \(event.timeZone), \(event.weightUnit), \(event.dailyCalorieGoal), \(event.calorieBalanceGoal),
                \(event.targetWeightKg), \(event.heightCm), \(event.birthDate), \(event.sex), \(event.activityLevel), \(event.dailyWaterGoalMillilitres),
                \(event.weekStart ?? Weekday.monday.rawValue), \(event.version))
            ON CONFLICT (user_id) DO UPDATE SET time_zone = EXCLUDED.time_zone, weight_unit = EXCLUDED.weight_unit,
                daily_calorie_goal = EXCLUDED.daily_calorie_goal, calorie_balance_goal = EXCLUDED.calorie_balance_goal,
                target_weight_kg = EXCLUDED.target_weight_kg, height_cm = EXCLUDED.height_cm, birth_date = EXCLUDED.birth_date,
                sex = EXCLUDED.sex, activity_level = EXCLUDED.activity_level, daily_water_goal_ml = EXCLUDED.daily_water_goal_ml,
                week_start = EXCLUDED.week_start, version = EXCLUDED.version
            WHERE user_profiles.version < EXCLUDED.version
            """, logger: logger)
        try await recordGoals(event, on: connection, logger: logger)
    }

    /// The goals of `event` as the period starting on its `goalsEffectiveFrom` (the highest version wins for one
    /// date, so events may arrive in any order). An event without the date (published before goal history existed)
    /// sets the goals counted from 2000-01-01, as long as no dated period exists.
    private func recordGoals(_ event: UserProfileUpdated, on connection: PostgresConnection, logger: Logger) async throws {
        let from = event.goalsEffectiveFrom ?? Self.undated
        try await connection.query(
            """
            INSERT INTO goal_history (user_id, effective_from, daily_calorie_goal, protein_goal_grams, carbs_goal_grams, fat_goal_grams,
                calorie_balance_goal, version)
            SELECT \(event.userId), \(from)::date, \(event.dailyCalorieGoal), \(event.proteinGoalGrams), \(event.carbsGoalGrams),
                \(event.fatGoalGrams), \(event.calorieBalanceGoal), \(event.version)
            WHERE \(event.goalsEffectiveFrom != nil) OR NOT EXISTS (
                SELECT 1 FROM goal_history WHERE user_id = \(event.userId) AND effective_from <> \(Self.undated)::date)
            ON CONFLICT (user_id, effective_from) DO UPDATE SET daily_calorie_goal = EXCLUDED.daily_calorie_goal,
                protein_goal_grams = EXCLUDED.protein_goal_grams, carbs_goal_grams = EXCLUDED.carbs_goal_grams,
                fat_goal_grams = EXCLUDED.fat_goal_grams, calorie_balance_goal = EXCLUDED.calorie_balance_goal, version = EXCLUDED.version
            WHERE goal_history.version < EXCLUDED.version
            """, logger: logger)
    }

    /// Where goals without a date count from.
    static let undated = "2000-01-01"

    func deleteAll(userId: UUID, on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query("DELETE FROM user_profiles WHERE user_id = \(userId)", logger: logger)
        try await connection.query("DELETE FROM goal_history WHERE user_id = \(userId)", logger: logger)
    }
}

import Foundation
import Logging
import PostgresNIO
import PostgresSupport
import ServiceDefaults

/// Reads the user's profile from the read model; every query logs to the request's `logger`.
struct ProfileReader: Sendable {
    let client: PostgresPool

    /// The user's profile with their goal history; `.standard` before the first event (an unknown zone falls back
    /// to UTC).
    func profile(of userId: UUID, logger: Logger) async throws -> TrendsProfile {
        async let goals = goals(of: userId, logger: logger)
        var profile = try await currentProfile(of: userId, logger: logger)
        profile.goals = try await goals
        profile.goals.dailyWaterGoalMillilitres = profile.dailyWaterGoalMillilitres
        return profile
    }

    /// The user's goal periods, oldest first.
    func goals(of userId: UUID, logger: Logger) async throws -> GoalHistory {
        let rows = try await client.query(
            "SELECT to_char(effective_from, 'YYYY-MM-DD'), daily_calorie_goal FROM goal_history WHERE user_id = \(userId)", logger: logger)
        var periods: [GoalHistory.Period] = []
        for try await (from, goal) in rows.decode((String, Int?).self) {
            if let from = CalendarDate(from) { periods.append(GoalHistory.Period(from: from, dailyCalorieGoal: goal)) }
        }
        return GoalHistory(periods)
    }

    private func currentProfile(of userId: UUID, logger: Logger) async throws -> TrendsProfile {
        let rows = try await client.query(
            """
            SELECT time_zone, weight_unit, daily_calorie_goal, calorie_balance_goal, target_weight_kg, height_cm, birth_date, sex,
                activity_level, daily_water_goal_ml, week_start
            FROM user_profiles WHERE user_id = \(userId)
            """, logger: logger)
        for try await row in rows.decode((String, String, Int?, Int?, Double?, Double?, String?, String?, String?, Int?, String).self) {
            var profile = TrendsProfile(
                timeZone: TimeZone(identifier: row.0) ?? TrendsProfile.standard.timeZone, weightUnit: row.1, dailyCalorieGoal: row.2,
                calorieBalanceGoal: row.3, targetWeightKg: row.4, heightCm: row.5, birthDate: row.6.flatMap { CalendarDate($0) },
                sex: row.7, activityLevel: row.8)
            profile.dailyWaterGoalMillilitres = row.9
            profile.weekStart = Weekday(rawValue: row.10) ?? .monday
            return profile
        }
        return .standard
    }
}

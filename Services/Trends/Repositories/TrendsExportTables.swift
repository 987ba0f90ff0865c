import BackendKit

/// Trends' part of the data export (`GET /api/export/trends`): the goal history, each set of goals with the day from
/// which it was in force. The daily summaries are left out: they are computed from the meals and metrics exported by
/// their own services.
enum TrendsExportTables {
    static let part = ExportPart(
        name: "trends",
        tables: [
            ExportTable(
                file: "goal_history", key: "goalHistory", source: "goal_history", order: "effective_from",
                columns: [
                    ExportColumn("effectiveFrom", "effective_from"), ExportColumn("dailyCalorieGoal", "daily_calorie_goal"),
                    ExportColumn("proteinGoalGrams", "protein_goal_grams"), ExportColumn("carbsGoalGrams", "carbs_goal_grams"),
                    ExportColumn("fatGoalGrams", "fat_goal_grams"), ExportColumn("calorieBalanceGoal", "calorie_balance_goal"),
                    ExportColumn("version", "version"),
                ])
        ])
}

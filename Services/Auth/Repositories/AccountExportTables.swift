import BackendKit

/// Auth's part of the data export (`GET /api/export/account`): the account, the profile with its goals, the
/// sessions as metadata and the profile's sync conflicts. Never the password hash, refresh or reset tokens (stored
/// as hashes), mail (which held reset links) or sign-in failures: nothing that could sign anyone in.
enum AccountExportTables {
    static let part = ExportPart(
        name: "account",
        tables: [
            ExportTable(
                file: "account", key: "account", source: "users", owner: "id", order: "id", isSingleRow: true,
                columns: [
                    ExportColumn("id", "id"), ExportColumn("email", "email", .text), ExportColumn("createdAt", "created_at", .timestamp),
                    ExportColumn("passwordChangedAt", "password_changed_at", .timestamp),
                ]),
            ExportTable(
                file: "profile", key: "profile", source: "profiles", order: "user_id", isSingleRow: true,
                columns: [
                    ExportColumn("displayName", "display_name", .text), ExportColumn("dietPreference", "diet_preference"),
                    ExportColumn("customProteinPct", "custom_protein_pct"), ExportColumn("customCarbsPct", "custom_carbs_pct"),
                    ExportColumn("customFatPct", "custom_fat_pct"), ExportColumn("dailyCalorieGoal", "daily_calorie_goal"),
                    ExportColumn("proteinGoalGrams", "protein_goal_grams"), ExportColumn("carbsGoalGrams", "carbs_goal_grams"),
                    ExportColumn("fatGoalGrams", "fat_goal_grams"), ExportColumn("calorieBalanceGoal", "calorie_balance_goal"),
                    ExportColumn("goalsEffectiveFrom", "goals_effective_from"), ExportColumn("targetWeightKg", "target_weight_kg"),
                    ExportColumn("weightUnit", "weight_unit"), ExportColumn("timeZone", "time_zone"), ExportColumn("heightCm", "height_cm"),
                    ExportColumn("birthDate", "birth_date"), ExportColumn("sex", "sex"), ExportColumn("activityLevel", "activity_level"),
                    ExportColumn("historyRetentionDays", "history_retention_days"),
                    ExportColumn("deletePhotosAfterDays", "delete_photos_after_days"),
                    ExportColumn("dailyWaterGoalMillilitres", "daily_water_goal_ml"), ExportColumn("weekStart", "week_start"),
                    ExportColumn("version", "version"),
                    ExportColumn("updatedAt", "updated_at", .timestamp), ExportColumn("modifiedAt", "modified_at", .timestamp),
                ]),
            ExportTable(
                file: "sessions", key: "sessions", source: "sessions", order: "created_at, id",
                columns: [
                    ExportColumn("id", "id"), ExportColumn("createdAt", "created_at", .timestamp),
                    ExportColumn("lastUsedAt", "last_used_at", .timestamp), ExportColumn("expiresAt", "expires_at", .timestamp),
                    ExportColumn("endedAt", "ended_at", .timestamp), ExportColumn("endedReason", "ended_reason"),
                    ExportColumn("userAgent", "user_agent", .text), ExportColumn("clientAddress", "client_address", .text),
                ]),
            .syncConflicts(file: "profile_sync_conflicts"),
        ])
}

import BackendKit

/// Meals' part of the data export (`GET /api/export/meals`): meals with their items (inside each meal in JSON, the
/// file `meal_items` in CSV), custom meals, the meals' sync conflicts, and the vision usage per month, key and model with
/// the monthly budget. Photos are not exported (only `hasPhoto`): they stay at `GET /api/meals/:id/photo`; nor is the
/// user's own vision key (it is never answered).
enum MealsExportTables {
    /// The columns of a meal in both formats; JSON adds the items.
    static let mealColumns = [
        ExportColumn("id", "id"), ExportColumn("origin", "origin"), ExportColumn("title", "title", .text),
        ExportColumn("description", "description", .text), ExportColumn("mealType", "meal_type"), ExportColumn("captureKind", "capture_kind"),
        ExportColumn("eatenAt", "eaten_at", .timestamp), ExportColumn("localDate", "local_date"), ExportColumn("timeZone", "time_zone"),
        ExportColumn("isConsumed", "is_consumed"), ExportColumn("consumedAt", "consumed_at", .timestamp), ExportColumn("notes", "notes", .text),
        ExportColumn("tags", "tags", .json), ExportColumn("edited", "edited"), ExportColumn("totals", "totals", .json),
        ExportColumn("health", "health", .json), ExportColumn("diet", "diet", .json), ExportColumn("unrecognised", "unrecognised", .json),
        ExportColumn("hasPhoto", "has_photo"), ExportColumn("version", "version"), ExportColumn("createdAt", "created_at", .timestamp),
        ExportColumn("updatedAt", "updated_at", .timestamp), ExportColumn("modifiedAt", "modified_at", .timestamp),
    ]

    /// A number or word of an item (`meals.items`, see `MealItem`), as text.
    private static func item(_ name: String, _ kind: ExportColumn.Kind = .value) -> ExportColumn {
        ExportColumn(name, "item.value->>'\(name)'", kind)
    }

    static let part = ExportPart(
        name: "meals",
        tables: [
            ExportTable(
                file: "meals", key: "meals", source: "meals", order: "eaten_at, id", formats: .jsonOnly,
                columns: mealColumns + [ExportColumn("items", "items", .json)]),
            ExportTable(file: "meals", key: "meals", source: "meals", order: "eaten_at, id", formats: .csvOnly, columns: mealColumns),
            ExportTable(
                file: "meal_items", key: "mealItems",
                source: "meals m CROSS JOIN LATERAL jsonb_array_elements(m.items) WITH ORDINALITY AS item(value, position)",
                owner: "m.user_id", order: "m.eaten_at, m.id, item.position", formats: .csvOnly,
                columns: [
                    ExportColumn("mealId", "m.id"), ExportColumn("position", "item.position"), item("name", .text), item("amount"),
                    item("unit", .text), item("grams"), item("foodId"), item("foodName", .text), item("productId"), item("calories"), item("protein"),
                    item("carbs"), item("fat"), item("fiber"), item("sugars"), item("saturatedFat"), item("sodium"), item("confidence"),
                    item("source"), ExportColumn("healthScore", "item.value->'healthScore'", .json),
                    ExportColumn("flags", "item.value->'flags'", .json),
                ]),
            ExportTable(
                file: "custom_meals", key: "customMeals", source: "custom_meals", order: "created_at, id",
                columns: [
                    ExportColumn("id", "id"), ExportColumn("name", "name", .text), ExportColumn("mealType", "meal_type"),
                    ExportColumn("tags", "tags", .json), ExportColumn("items", "items", .json), ExportColumn("version", "version"),
                    ExportColumn("createdAt", "created_at", .timestamp), ExportColumn("updatedAt", "updated_at", .timestamp),
                    ExportColumn("modifiedAt", "modified_at", .timestamp),
                ]),
            .syncConflicts(file: "meal_sync_conflicts"),
            ExportTable(
                file: "vision_usage", key: "visionUsage", source: "vision_usage", order: "month, usage_key, model",
                columns: [
                    ExportColumn("month", "to_char(month, 'YYYY-MM')"),
                    ExportColumn("key", "CASE WHEN usage_key = 'server' THEN 'server' ELSE 'own' END"),
                    ExportColumn("keyId", "nullif(nullif(usage_key, 'server'), 'own')"), ExportColumn("model", "model", .text),
                    ExportColumn("calls", "calls"), ExportColumn("promptTokens", "prompt_tokens"),
                    ExportColumn("completionTokens", "completion_tokens"), ExportColumn("updatedAt", "updated_at", .timestamp),
                ]),
            ExportTable(
                file: "vision_budget", key: "visionBudget", source: "vision_budgets", order: "user_id", isSingleRow: true,
                columns: [ExportColumn("monthlyBudgetUsd", "monthly_budget_usd"), ExportColumn("updatedAt", "updated_at", .timestamp)]),
        ])
}

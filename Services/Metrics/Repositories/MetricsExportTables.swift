import BackendKit

/// Metrics' part of the data export (`GET /api/export/metrics`): the body metrics of every day the user recorded
/// (weight in kg and ketones; emptied days are deletions and left out), every water entry, and their sync conflicts.
enum MetricsExportTables {
    static let part = ExportPart(
        name: "metrics",
        tables: [
            ExportTable(
                file: "body_metrics", key: "bodyMetrics", source: "daily_metrics", order: "day",
                filter: "weight_kg IS NOT NULL OR ketones IS NOT NULL",
                columns: [
                    ExportColumn("day", "day"), ExportColumn("weightKg", "weight_kg"), ExportColumn("ketones", "ketones"),
                    ExportColumn("notes", "notes", .text), ExportColumn("version", "version"), ExportColumn("updatedAt", "updated_at", .timestamp),
                    ExportColumn("modifiedAt", "modified_at", .timestamp),
                ]),
            ExportTable(
                file: "water_entries", key: "waterEntries", source: "water_entries", order: "day, created_at, id",
                columns: [
                    ExportColumn("id", "id"), ExportColumn("day", "day"), ExportColumn("millilitres", "millilitres"),
                    ExportColumn("version", "version"), ExportColumn("createdAt", "created_at", .timestamp),
                    ExportColumn("updatedAt", "updated_at", .timestamp), ExportColumn("modifiedAt", "modified_at", .timestamp),
                ]),
            .syncConflicts(file: "body_metrics_sync_conflicts"),
        ])
}

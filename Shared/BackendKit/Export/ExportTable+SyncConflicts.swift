extension ExportTable {
    /// The conflicts the schema's last-write-wins rule resolved for the user (`sync_conflicts`, the same table in
    /// every service with sync), as `syncConflicts` in JSON and the CSV file `file` (unique across the export).
    public static func syncConflicts(file: String) -> ExportTable {
        ExportTable(
            file: file, key: "syncConflicts", source: "sync_conflicts", order: "resolved_at, id",
            columns: [
                ExportColumn("id", "id"), ExportColumn("entityType", "entity_type"), ExportColumn("entityId", "entity_id"),
                ExportColumn("resolution", "resolution"), ExportColumn("winner", "winner"), ExportColumn("stored", "stored", .json),
                ExportColumn("incoming", "incoming", .json), ExportColumn("resolvedAt", "resolved_at", .timestamp),
            ])
    }
}

import BackendKit

/// Sharing's part of the data export (`GET /api/export/sharing`): the user's share links as the owner's list shows
/// them (the token is in the link's public URL, which the owner already holds), with their view counts.
enum SharingExportTables {
    static let part = ExportPart(
        name: "sharing",
        tables: [
            ExportTable(
                file: "share_links", key: "shareLinks", source: "links", order: "created_at, link_id",
                columns: [
                    ExportColumn("linkId", "link_id"), ExportColumn("token", "token"), ExportColumn("mealId", "meal_id"),
                    ExportColumn("createdAt", "created_at", .timestamp), ExportColumn("expiresAt", "expires_at", .timestamp),
                    ExportColumn("revokedAt", "revoked_at", .timestamp), ExportColumn("includePhoto", "include_photo"),
                    ExportColumn("showDisplayName", "show_display_name"), ExportColumn("viewCount", "view_count"),
                    ExportColumn("lastViewedAt", "last_viewed_at", .timestamp),
                ])
        ])
}

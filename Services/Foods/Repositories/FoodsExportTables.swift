import BackendKit

/// Foods' part of the data export (`GET /api/export/foods`): the products the user added (still theirs: once an
/// account is deleted its products stay without an author) with every version they made, and their reports.
enum FoodsExportTables {
    static let part = ExportPart(
        name: "foods",
        tables: [
            ExportTable(
                file: "products", key: "products", source: "products", owner: "author_id", order: "created_at, id",
                columns: [
                    ExportColumn("id", "id"), ExportColumn("barcode", "gtin", .text), ExportColumn("name", "name", .text),
                    ExportColumn("brand", "brand", .text), ExportColumn("details", "details", .json), ExportColumn("version", "version"),
                    ExportColumn("status", "status", .text), ExportColumn("createdAt", "created_at", .timestamp),
                    ExportColumn("updatedAt", "updated_at", .timestamp),
                ]),
            ExportTable(
                file: "product_versions", key: "productVersions", source: "product_versions", owner: "editor_id",
                order: "product_id, version",
                columns: [
                    ExportColumn("productId", "product_id"), ExportColumn("version", "version"), ExportColumn("details", "details", .json),
                    ExportColumn("editedAt", "edited_at", .timestamp),
                ]),
            ExportTable(
                file: "product_reports", key: "productReports", source: "product_reports", owner: "reporter_id",
                order: "reported_at, product_id",
                columns: [
                    ExportColumn("productId", "product_id"), ExportColumn("reason", "reason", .text), ExportColumn("note", "note", .text),
                    ExportColumn("reportedAt", "reported_at", .timestamp),
                ]),
        ])
}

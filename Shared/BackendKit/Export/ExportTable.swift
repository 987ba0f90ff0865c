import Foundation
import PostgresNIO

/// One table of a service's export part: a JSON key in the part's document and a CSV file in the zip, read with one
/// query of the caller's rows only (`owner` = the caller's id), in a stable order.
public struct ExportTable: Sendable {
    /// Which formats carry the table: meals carry their items inside in JSON, while CSV has a `meal_items` file.
    public enum Formats: Sendable {
        case both
        case jsonOnly
        case csvOnly
    }

    /// The CSV file name without `.csv` (also the `table` query value), snake_case and unique in the whole export.
    public var file: String
    /// The key in the part's JSON document, camelCase.
    public var key: String
    public var columns: [ExportColumn]
    /// The SQL after `FROM` (a table, or a table with a lateral join), static text of the service.
    public var source: String
    /// The SQL column holding the owner's id.
    public var owner: String
    /// The SQL after `ORDER BY`: a stable order, so two exports of the same data are the same bytes.
    public var order: String
    /// Extra `AND` condition (rows that are not the user's records, such as emptied days), or nil.
    public var filter: String?
    /// At most one row (the account, the profile): JSON writes the object (or null) instead of an array.
    public var isSingleRow: Bool
    public var formats: Formats

    public init(
        file: String, key: String, source: String, owner: String = "user_id", order: String, filter: String? = nil,
        isSingleRow: Bool = false, formats: Formats = .both, columns: [ExportColumn]
    ) {
        self.file = file
        self.key = key
        self.columns = columns
        self.source = source
        self.owner = owner
        self.order = order
        self.filter = filter
        self.isSingleRow = isSingleRow
        self.formats = formats
    }

    var inJSON: Bool { formats != .csvOnly }
    var inCSV: Bool { formats != .jsonOnly }

    /// One `text` column per row: the row as a JSON object, keys in column order.
    func jsonQuery(userId: UUID) -> PostgresQuery {
        let pairs = columns.map { "'\($0.name)', \($0.jsonExpression)" }.joined(separator: ", ")
        return rowsQuery(select: "json_build_object(\(pairs))::text", userId: userId)
    }

    /// One `text[]` column per row: the row's fields as CSV text, in column order.
    func csvQuery(userId: UUID) -> PostgresQuery {
        rowsQuery(select: "ARRAY[\(columns.map(\.csvExpression).joined(separator: ", "))]::text[]", userId: userId)
    }

    /// The header record of the CSV file.
    var csvHeader: String { CSVField.record(columns.map(\.name), guardFormula: []) }

    /// Which fields of a CSV record are user text, guarded against formulas.
    var guardedFields: [Bool] { columns.map { $0.kind == .text } }

    private func rowsQuery(select: String, userId: UUID) -> PostgresQuery {
        let condition = filter.map { " AND (\($0))" } ?? ""
        return
            "SELECT \(unescaped: select) FROM \(unescaped: source) WHERE \(unescaped: owner) = \(userId)\(unescaped: condition) ORDER BY \(unescaped: order)"
    }
}

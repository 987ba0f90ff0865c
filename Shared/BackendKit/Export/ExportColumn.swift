/// One column of an exported table: its name in the export (the JSON key and the CSV header), the SQL expression
/// that reads it, and how it is written.
public struct ExportColumn: Sendable {
    /// How a column's value is written in JSON and in CSV.
    public enum Kind: Sendable {
        /// Text the user typed (titles, notes, names): in CSV, guarded against formula injection (`CSVField`).
        case text
        /// A value Postgres writes as itself: numbers, booleans, dates, ids; never guarded (a negative number stays one).
        case value
        /// A `timestamptz`: ISO 8601 in UTC with milliseconds, `2026-11-25T04:40:00.000Z`.
        case timestamp
        /// `jsonb` or an array: embedded as JSON in JSON, its JSON text in one CSV field.
        case json
    }

    /// camelCase, as the API's bodies name the field.
    public var name: String
    /// A SQL expression over the table's `FROM` (static text of the service, never client input).
    public var sql: String
    public var kind: Kind

    public init(_ name: String, _ sql: String, _ kind: Kind = .value) {
        self.name = name
        self.sql = sql
        self.kind = kind
    }

    /// The expression as a JSON value for `json_build_object`.
    var jsonExpression: String {
        switch kind {
        case .timestamp: Self.utcTimestamp(sql)
        case .text, .value, .json: "(\(sql))"
        }
    }

    /// The expression as CSV text; `NULL` is the empty field.
    var csvExpression: String {
        switch kind {
        case .timestamp: "coalesce(\(Self.utcTimestamp(sql)), '')"
        case .json: "coalesce(to_json(\(sql))::text, '')"
        case .text, .value: "coalesce((\(sql))::text, '')"
        }
    }

    private static func utcTimestamp(_ sql: String) -> String {
        #"to_char((\#(sql)) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')"#
    }
}

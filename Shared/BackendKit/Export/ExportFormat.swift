import ServiceDefaults

/// The formats of `GET /api/export?format=` and of each service's part.
public enum ExportFormat: String, Sendable {
    /// One JSON document.
    case json
    /// One CSV file per table (the gateway zips them).
    case csv

    /// `format` of a query: absent is JSON; anything else but `json` or `csv` is 422.
    public init(query value: String?) throws {
        guard let value else {
            self = .json
            return
        }
        guard let format = ExportFormat(rawValue: value) else { throw APIError.invalid(["format": "Use json or csv."]) }
        self = format
    }
}

/// One service's part of the data export, served by that service under `/api/export/<section>`; the gateway puts
/// them in this order into the JSON document (as keys) and the zip (as files).
enum ExportSection: String, CaseIterable, Sendable {
    case account
    case meals
    case foods
    case metrics
    case trends
    case sharing

    /// The part's path, routed to its service by the routes file.
    var path: String { "/api/export/\(rawValue)" }
}

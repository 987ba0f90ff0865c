/// One part of the changes feed, served by the service that owns its data under `/api/sync/<area>`; the gateway
/// composes them in this order (profile, meals, metrics).
enum SyncArea: String, CaseIterable, Codable, CodingKeyRepresentable, Sendable {
    case profile
    case meals
    case metrics

    /// The area's path prefix, routed to its service by the routes file.
    var pathPrefix: String { "/api/sync/\(rawValue)" }
}

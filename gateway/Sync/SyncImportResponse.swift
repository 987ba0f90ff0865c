import SyncContracts

/// The answer of `POST /api/sync/import` (and the shape of each area's): every item's result in request order
/// (meals first, then weigh-ins) and, for the composed answer, how many ended each way.
struct SyncImportResponse: Codable, Sendable, Equatable {
    /// How many items ended each way.
    struct Summary: Codable, Sendable, Equatable {
        var created = 0
        var updated = 0
        var alreadyPresent = 0
        var rejected = 0
    }

    var results: [SyncImportResult]
    var summary: Summary?

    /// The composed answer: `meals` results, then `weighIns` results, with their summary.
    static func combining(meals: [SyncImportResult], weighIns: [SyncImportResult]) -> SyncImportResponse {
        let results = meals + weighIns
        var summary = Summary()
        for result in results {
            switch result.status {
            case .created: summary.created += 1
            case .updated: summary.updated += 1
            case .alreadyPresent: summary.alreadyPresent += 1
            case .rejected: summary.rejected += 1
            }
        }
        return SyncImportResponse(results: results, summary: summary)
    }
}

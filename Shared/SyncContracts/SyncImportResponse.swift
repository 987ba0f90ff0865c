/// The answer of a bulk import, the composed `POST /api/sync/import` and each area's alike: every item's result in
/// request order (meals first, then weigh-ins, when composed) and how many ended each way.
public struct SyncImportResponse: Codable, Sendable, Equatable {
    /// How many items ended each way.
    public struct Summary: Codable, Sendable, Equatable {
        public var created = 0
        public var updated = 0
        public var alreadyPresent = 0
        public var rejected = 0

        public init(created: Int = 0, updated: Int = 0, alreadyPresent: Int = 0, rejected: Int = 0) {
            self.created = created
            self.updated = updated
            self.alreadyPresent = alreadyPresent
            self.rejected = rejected
        }
    }

    public var results: [SyncImportResult]
    public var summary: Summary

    /// The answer of these results, with their summary.
    public init(results: [SyncImportResult]) {
        self.results = results
        var summary = Summary()
        for result in results {
            switch result.status {
            case .created: summary.created += 1
            case .updated: summary.updated += 1
            case .alreadyPresent: summary.alreadyPresent += 1
            case .rejected: summary.rejected += 1
            }
        }
        self.summary = summary
    }
}

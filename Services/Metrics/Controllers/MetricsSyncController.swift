import Foundation
import Hummingbird
import ServiceDefaults
import SyncContracts

/// The metrics area of offline-first sync: `GET /api/sync/metrics/changes` (recorded days and the tombstones of
/// emptied ones, in commit order) and `GET /api/sync/metrics/conflicts` (what last-write-wins resolved). The gateway
/// merges them with the other areas at `/api/sync/changes` and `/api/sync/conflicts`.
struct MetricsSyncController: Sendable {
    let store: any BodyMetricsStore
    let now: @Sendable () -> Date

    /// `limit=` of the conflict list.
    static let conflictLimits = 1...100
    static let defaultConflictLimit = 50

    func addRoutes(to router: Router<AppRequestContext>) {
        router.get("/api/sync/metrics/changes", use: changes)
        router.get("/api/sync/metrics/conflicts", use: conflicts)
    }

    /// `GET /api/sync/metrics/changes?since=&limit=`: type `body_metrics_day`, id the day, data the day as
    /// `GET /api/metrics/daily` answers it (in the preferred unit), an emptied day a tombstone; type `water_entry`, id the
    /// entry, data the entry as `POST /api/metrics/water` answers it, a removed entry a tombstone.
    @Sendable func changes(request: Request, context: AppRequestContext) async throws -> SyncChangePage<MetricsChangeData> {
        let caller = try CallerIdentity(request)
        let query = try SyncFeedQuery(
            since: request.uri.queryParameters["since"].map(String.init), limit: request.uri.queryParameters["limit"].map(String.init))
        let profile = try await store.profile(of: caller.userId, logger: context.logger)
        let entries = try await store.changes(of: caller.userId, since: query.since, limit: query.limit + 1, logger: context.logger)
        let page = entries.prefix(query.limit).map { entry -> SyncChange<MetricsChangeData> in
            switch entry {
            case .day(let seq, let day):
                .live(
                    seq: seq, type: DailyMetrics.syncType, id: day.date.description, version: day.version,
                    modifiedAt: day.modified?.date ?? day.updatedAt, data: .day(DailyMetricsBody(day, unit: profile.weightUnit)))
            case .water(let seq, let entry):
                .live(
                    seq: seq, type: WaterEntry.syncType, id: entry.entityId, version: entry.version, modifiedAt: entry.modified.date,
                    data: .water(WaterEntryBody(entry)))
            case .removed(let seq, let type, let id, let version, let deletedAt):
                .tombstone(seq: seq, type: type, id: id, version: version, deletedAt: deletedAt)
            }
        }
        return SyncChangePage(
            changes: page, nextCursor: String(page.last?.seq ?? query.since), hasMore: entries.count > query.limit)
    }

    /// `GET /api/sync/metrics/conflicts?limit=&cursor=`: the caller's resolved conflicts of days, newest first.
    @Sendable func conflicts(request: Request, context: AppRequestContext) async throws -> SyncConflictPage<JSONValue> {
        let caller = try CallerIdentity(request)
        var limit = Self.defaultConflictLimit
        if let text = request.uri.queryParameters["limit"] {
            guard let value = Int(text), Self.conflictLimits.contains(value) else {
                throw APIError.invalid(["limit": "Use \(Self.conflictLimits.lowerBound) to \(Self.conflictLimits.upperBound)."])
            }
            limit = value
        }
        // An empty cursor is no cursor this API made: 422 as any other (`ListCursor`).
        let cursor = request.uri.queryParameters["cursor"].map(String.init)
        return try await store.conflicts(of: caller.userId, limit: limit, cursor: cursor, logger: context.logger)
    }
}

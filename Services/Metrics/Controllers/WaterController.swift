import Foundation
import Hummingbird
import ServiceDefaults
import SyncContracts

/// Water intake: entries logged several times a day (each its own entity under the client's or the server's id),
/// summed per day. Every change publishes the total of each day it touched as `water.logged`.
///
/// Last-write-wins, as for meals: a write of a stored id with an older `modifiedAt` is not applied (200 with the stored
/// entry and `conflict: stale_write_ignored`); a removed id is never brought back (200 with its tombstone and
/// `conflict: deletion_preserved`); removals always apply. Conflicts are listed at `GET /api/sync/metrics/conflicts`.
struct WaterController: Sendable {
    let store: any BodyMetricsStore
    let now: @Sendable () -> Date

    func addRoutes(to router: Router<AppRequestContext>) {
        router.post("/api/metrics/water", use: logWater)
        router.get("/api/metrics/water", use: water)
        router.delete("/api/metrics/water/:id", use: removeWater)
    }

    /// `POST /api/metrics/water` {millilitres, date?, id?, modifiedAt?}: 201 for a new entry, 200 when it replaces the
    /// entry of the same id (or replays it); 200 with `conflict` when last-write-wins kept what is stored.
    @Sendable func logWater(request: Request, context: AppRequestContext) async throws -> EditedResponse<MetricsWriteAnswer> {
        let caller = try CallerIdentity(request)
        var request = request
        let raw = try await request.collectBody(upTo: context.maxUploadSize)
        let body = try await request.decodeJSON(as: WaterRequest.self, context: context)
        let profile = try await store.profile(of: caller.userId, logger: context.logger)
        let write = try body.write(profile: profile, now: now(), body: raw.readableBytesView)
        return Self.answer(try await store.changeWater(userId: caller.userId, write, logger: context.logger))
    }

    /// `GET /api/metrics/water?days=7`: each day of the last `days` (today included) with water, its total and its
    /// entries, oldest first.
    @Sendable func water(request: Request, context: AppRequestContext) async throws -> MetricsListBody<WaterDayBody> {
        let caller = try CallerIdentity(request)
        let profile = try await store.profile(of: caller.userId, logger: context.logger)
        var fields = MetricsFieldReader(profile: profile, now: now())
        let range = fields.dayRange(request.uri.queryParameters["days"].map(String.init), defaultDays: 7)
        try fields.check()
        let entries = try await store.waterEntries(of: caller.userId, from: range.lowerBound, to: range.upperBound, logger: context.logger)
        return MetricsListBody(from: range.lowerBound, to: range.upperBound, entries: WaterDayBody.days(entries))
    }

    /// `DELETE /api/metrics/water/:id?modifiedAt=`: 204; 404 when the caller has no such entry.
    @Sendable func removeWater(request: Request, context: AppRequestContext) async throws -> HTTPResponse.Status {
        let caller = try CallerIdentity(request)
        let id = try context.parameters.uuid("id")
        let profile = try await store.profile(of: caller.userId, logger: context.logger)
        var fields = MetricsFieldReader(profile: profile, now: now())
        let modifiedAt = request.uri.queryParameters["modifiedAt"].map(String.init)
        let stamp = fields.stamp(modifiedAt, body: Array("DELETE \(request.uri.path)".utf8))
        try fields.check()
        guard let stamp else { throw APIError.invalid([:]) }
        let write = DayWrite(stamp: stamp, isDeletion: true, isServerTimed: modifiedAt == nil)
        _ = try await store.changeWater(
            userId: caller.userId, WaterWrite(id: id, date: profile.today(now: now()), millilitres: 0, write: write), logger: context.logger)
        return .noContent
    }

    /// The answer of a water write's `outcome`.
    static func answer(_ outcome: WaterChangeOutcome) -> EditedResponse<MetricsWriteAnswer> {
        switch outcome {
        case .created(let entry):
            return EditedResponse(
                status: .created, headers: [.eTag: "\"\(entry.version)\""], response: MetricsWriteAnswer(state: .water(WaterEntryBody(entry))))
        case .updated(let entry), .unchanged(let entry), .removed(let entry):
            return EditedResponse(
                status: .ok, headers: [.eTag: "\"\(entry.version)\""], response: MetricsWriteAnswer(state: .water(WaterEntryBody(entry))))
        case .ignored(let stored, let resolution):
            return EditedResponse(
                status: .ok, headers: [.eTag: "\"\(stored.version)\""],
                response: MetricsWriteAnswer(state: .water(WaterEntryBody(stored)), conflict: resolution))
        case .deletionPreserved(let id, let version, let deletedAt):
            return EditedResponse(
                status: .ok, headers: [.eTag: "\"\(version)\""],
                response: MetricsWriteAnswer(
                    state: .waterTombstone(WaterTombstoneBody(id: id, version: version, deletedAt: deletedAt)), conflict: .deletionPreserved))
        }
    }
}

import Foundation
import Hummingbird
import ServiceDefaults
import SyncContracts

/// Weight and ketones: one record per user and day (a second entry that day updates it), answered in the
/// requested or preferred unit. Every change publishes the day's full record as `weight.logged`.
///
/// Last-write-wins (offline-first clients): a write may carry `modifiedAt` (in the JSON body of a `POST`, as the
/// `?modifiedAt=` query of a `DELETE`); the day keeps the stamp of its last applied write. An older write is not
/// applied: 200 with the stored state and `conflict`, recorded at `GET /api/sync/metrics/conflicts`. Removals
/// always apply (a removal older than the stored write is recorded as `deletion_overrode_edit`).
struct MetricsController: Sendable {
    let store: any BodyMetricsStore
    let now: @Sendable () -> Date

    func addRoutes(to router: Router<AppRequestContext>) {
        router.post("/api/metrics/weight", use: logWeight)
        router.get("/api/metrics/weight", use: weights)
        router.delete("/api/metrics/weight/:date", use: removeWeight)
        router.post("/api/metrics/ketones", use: logKetones)
        router.get("/api/metrics/ketones", use: ketones)
        router.delete("/api/metrics/ketones/:date", use: removeKetones)
        router.get("/api/metrics/daily", use: daily)
    }

    /// `POST /api/metrics/weight` {date?, weight, unit?, notes?, modifiedAt?}: 201 for the day's first weight, 200 when
    /// it replaces one; 200 with `conflict` when a newer write is stored.
    @Sendable func logWeight(request: Request, context: AppRequestContext) async throws -> EditedResponse<MetricsWriteAnswer> {
        let caller = try CallerIdentity(request)
        var request = request
        let raw = try await request.collectBody(upTo: context.maxUploadSize)
        let body = try await request.decodeJSON(as: WeightRequest.self, context: context)
        let profile = try await store.profile(of: caller.userId, logger: context.logger)
        let weighIn = try body.values(profile: profile, now: now(), body: raw.readableBytesView)
        let outcome = try await store.change(
            userId: caller.userId, date: weighIn.date, write: DayWrite(stamp: weighIn.stamp, isServerTimed: weighIn.isServerTimed),
            logger: context.logger
        ) { day in
            day.weightKg = weighIn.kilograms
            if let notes = weighIn.notes { day.notes = notes.isEmpty ? nil : notes }
        }
        return Self.answer(outcome, unit: weighIn.unit, wasAbsent: { $0.weightKg == nil }) {
            WeightEntryBody($0, unit: weighIn.unit).map(MetricsWriteAnswer.State.weight)
        }
    }

    /// `GET /api/metrics/weight?days=30&unit=`: the weights of the last `days` days (today included), oldest first.
    @Sendable func weights(request: Request, context: AppRequestContext) async throws -> MetricsListBody<WeightEntryBody> {
        let (range, unit, records) = try await recordedDays(request, context: context)
        return MetricsListBody(from: range.lowerBound, to: range.upperBound, entries: records.compactMap { WeightEntryBody($0, unit: unit) })
    }

    /// `DELETE /api/metrics/weight/:date?modifiedAt=`: 204; 404 when that day has no weight.
    @Sendable func removeWeight(request: Request, context: AppRequestContext) async throws -> HTTPResponse.Status {
        try await remove(\.weightKg, named: "weight", request: request, context: context)
    }

    /// `POST /api/metrics/ketones` {date?, level, notes?, modifiedAt?}: 201 for the day's first level, 200 when it
    /// replaces one; 200 with `conflict` when a newer write is stored.
    @Sendable func logKetones(request: Request, context: AppRequestContext) async throws -> EditedResponse<MetricsWriteAnswer> {
        let caller = try CallerIdentity(request)
        var request = request
        let raw = try await request.collectBody(upTo: context.maxUploadSize)
        let body = try await request.decodeJSON(as: KetonesRequest.self, context: context)
        let profile = try await store.profile(of: caller.userId, logger: context.logger)
        var fields = MetricsFieldReader(profile: profile, now: now())
        let date = fields.date(body.date)
        let level = fields.ketones(body.level)
        let notes = fields.notes(body.notes)
        let stamp = fields.stamp(body.modifiedAt, body: raw.readableBytesView)
        try fields.check()
        guard let date, let level, let stamp else { throw APIError.invalid([:]) }
        let outcome = try await store.change(
            userId: caller.userId, date: date, write: DayWrite(stamp: stamp, isServerTimed: body.modifiedAt == nil), logger: context.logger
        ) {
            day in
            day.ketones = level
            if let notes { day.notes = notes.isEmpty ? nil : notes }
        }
        return Self.answer(outcome, unit: profile.weightUnit, wasAbsent: { $0.ketones == nil }) {
            KetoneEntryBody($0).map(MetricsWriteAnswer.State.ketones)
        }
    }

    /// `GET /api/metrics/ketones?days=30`: the ketone levels of the last `days` days, oldest first.
    @Sendable func ketones(request: Request, context: AppRequestContext) async throws -> MetricsListBody<KetoneEntryBody> {
        let (range, _, records) = try await recordedDays(request, context: context)
        return MetricsListBody(from: range.lowerBound, to: range.upperBound, entries: records.compactMap(KetoneEntryBody.init))
    }

    /// `DELETE /api/metrics/ketones/:date?modifiedAt=`: 204; 404 when that day has no ketone level.
    @Sendable func removeKetones(request: Request, context: AppRequestContext) async throws -> HTTPResponse.Status {
        try await remove(\.ketones, named: "ketone level", request: request, context: context)
    }

    /// `GET /api/metrics/daily?days=7&unit=`: every recorded day of the range with its weight, ketone level,
    /// `inKetosis` and notes, oldest first; days without a record are left out.
    @Sendable func daily(request: Request, context: AppRequestContext) async throws -> MetricsListBody<DailyMetricsBody> {
        let (range, unit, records) = try await recordedDays(request, context: context, defaultDays: 7)
        return MetricsListBody(from: range.lowerBound, to: range.upperBound, entries: records.map { DailyMetricsBody($0, unit: unit) })
    }

    /// Removes one measurement of the caller's `:date`; 404 when that day has none. The removal's stamp is the
    /// `?modifiedAt=` query (a `DELETE` has no body), the server's time when absent; removals always apply.
    private func remove(
        _ measurement: WritableKeyPath<DailyMetrics, Double?> & Sendable, named name: String, request: Request, context: AppRequestContext
    ) async throws -> HTTPResponse.Status {
        let caller = try CallerIdentity(request)
        let date = try Self.pathDate(context)
        let profile = try await store.profile(of: caller.userId, logger: context.logger)
        var fields = MetricsFieldReader(profile: profile, now: now())
        let modifiedAt = request.uri.queryParameters["modifiedAt"].map(String.init)
        let stamp = fields.stamp(modifiedAt, body: Array("DELETE \(request.uri.path)".utf8))
        try fields.check()
        guard let stamp else { throw APIError.invalid([:]) }
        _ = try await store.change(
            userId: caller.userId, date: date, write: DayWrite(stamp: stamp, isDeletion: true, isServerTimed: modifiedAt == nil),
            logger: context.logger
        ) { day in
            guard day[keyPath: measurement] != nil else { throw APIError.notFound("No \(name) was logged on \(date).") }
            day[keyPath: measurement] = nil
        }
        return .noContent
    }

    /// The answer of a write's `outcome`: the route's `entry` of the day (201 when `wasAbsent` of the day before),
    /// or the stored state with `conflict` when last-write-wins kept it.
    static func answer(
        _ outcome: DayChangeOutcome, unit: WeightUnit, wasAbsent: (DailyMetrics) -> Bool,
        entry: (DailyMetrics) -> MetricsWriteAnswer.State?
    ) -> EditedResponse<MetricsWriteAnswer> {
        switch outcome {
        case .applied(let before, let after):
            let state = entry(after) ?? storedState(after, unit: unit)
            return EditedResponse(
                status: wasAbsent(before) ? .created : .ok, headers: [.eTag: "\"\(after.version)\""], response: MetricsWriteAnswer(state: state))
        case .unchanged(let stored):
            let state = entry(stored) ?? storedState(stored, unit: unit)
            return EditedResponse(status: .ok, headers: [.eTag: "\"\(stored.version)\""], response: MetricsWriteAnswer(state: state))
        case .ignored(let stored, let resolution):
            let state = stored.isEmpty ? storedState(stored, unit: unit) : entry(stored) ?? storedState(stored, unit: unit)
            return EditedResponse(
                status: .ok, headers: [.eTag: "\"\(stored.version)\""], response: MetricsWriteAnswer(state: state, conflict: resolution))
        }
    }

    /// The whole stored day, or its tombstone when it is emptied.
    private static func storedState(_ day: DailyMetrics, unit: WeightUnit) -> MetricsWriteAnswer.State {
        day.isEmpty ? .tombstone(MetricsDayTombstoneBody(day)) : .day(DailyMetricsBody(day, unit: unit))
    }

    /// The caller's recorded days of the last `days` days and the unit asked for (or preferred).
    private func recordedDays(
        _ request: Request, context: AppRequestContext, defaultDays: Int = 30
    ) async throws -> (range: ClosedRange<CalendarDate>, unit: WeightUnit, days: [DailyMetrics]) {
        let caller = try CallerIdentity(request)
        let profile = try await store.profile(of: caller.userId, logger: context.logger)
        var fields = MetricsFieldReader(profile: profile, now: now())
        let range = fields.dayRange(request.uri.queryParameters["days"].map(String.init), defaultDays: defaultDays)
        let unit = fields.unit(request.uri.queryParameters["unit"].map(String.init))
        try fields.check()
        let records = try await store.days(of: caller.userId, from: range.lowerBound, to: range.upperBound, logger: context.logger)
        return (range, unit, records)
    }

    /// The `:date` path parameter; 422 for anything that is not a date.
    private static func pathDate(_ context: AppRequestContext) throws -> CalendarDate {
        try context.parameters.calendarDate("date")
    }
}

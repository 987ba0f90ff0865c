import Foundation
import Hummingbird
import PostgresNIO
import PostgresSupport
import ServiceDefaults

/// Weight and ketones: one record per user and day (a second entry that day updates it), answered in the
/// requested or preferred unit. Every change publishes the day's full record as `weight.logged`.
struct MetricsController: Sendable {
    let client: PostgresPool
    let days: DailyMetricsRepository
    let profiles: MetricsProfileRepository
    let store: DailyMetricsStore
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

    /// `POST /api/metrics/weight` {date?, weight, unit?, notes?}: 201 for the day's first weight, 200 when it replaces one.
    @Sendable func logWeight(request: Request, context: AppRequestContext) async throws -> EditedResponse<WeightEntryBody> {
        let caller = try CallerIdentity(request)
        let body = try await request.decodeJSON(as: WeightRequest.self, context: context)
        let profile = try await profiles.profile(of: caller.userId, client: client)
        var fields = MetricsFieldReader(profile: profile, now: now())
        let date = fields.date(body.date)
        let unit = fields.unit(body.unit)
        let kilograms = fields.weight(body.weight, unit: unit)
        let notes = fields.notes(body.notes)
        try fields.check()
        guard let date, let kilograms else { throw APIError.invalid([:]) }
        let (before, after) = try await store.change(userId: caller.userId, date: date) { day in
            day.weightKg = kilograms
            if let notes { day.notes = notes.isEmpty ? nil : notes }
        }
        return EditedResponse(
            status: before.weightKg == nil ? .created : .ok, headers: [.eTag: "\"\(after.version)\""],
            response: WeightEntryBody(after, unit: unit)!)
    }

    /// `GET /api/metrics/weight?days=30&unit=`: the weights of the last `days` days (today included), oldest first.
    @Sendable func weights(request: Request, context: AppRequestContext) async throws -> MetricsListBody<WeightEntryBody> {
        let (range, unit, records) = try await recordedDays(request)
        return MetricsListBody(from: range.lowerBound, to: range.upperBound, entries: records.compactMap { WeightEntryBody($0, unit: unit) })
    }

    /// `DELETE /api/metrics/weight/:date`: 204; 404 when that day has no weight.
    @Sendable func removeWeight(request: Request, context: AppRequestContext) async throws -> HTTPResponse.Status {
        try await remove(\.weightKg, named: "weight", request: request, context: context)
    }

    /// `POST /api/metrics/ketones` {date?, level, notes?}: 201 for the day's first level, 200 when it replaces one.
    @Sendable func logKetones(request: Request, context: AppRequestContext) async throws -> EditedResponse<KetoneEntryBody> {
        let caller = try CallerIdentity(request)
        let body = try await request.decodeJSON(as: KetonesRequest.self, context: context)
        let profile = try await profiles.profile(of: caller.userId, client: client)
        var fields = MetricsFieldReader(profile: profile, now: now())
        let date = fields.date(body.date)
        let level = fields.ketones(body.level)
        let notes = fields.notes(body.notes)
        try fields.check()
        guard let date, let level else { throw APIError.invalid([:]) }
        let (before, after) = try await store.change(userId: caller.userId, date: date) { day in
            day.ketones = level
            if let notes { day.notes = notes.isEmpty ? nil : notes }
        }
        return EditedResponse(
            status: before.ketones == nil ? .created : .ok, headers: [.eTag: "\"\(after.version)\""], response: KetoneEntryBody(after)!)
    }

    /// `GET /api/metrics/ketones?days=30`: the ketone levels of the last `days` days, oldest first.
    @Sendable func ketones(request: Request, context: AppRequestContext) async throws -> MetricsListBody<KetoneEntryBody> {
        let (range, _, records) = try await recordedDays(request)
        return MetricsListBody(from: range.lowerBound, to: range.upperBound, entries: records.compactMap(KetoneEntryBody.init))
    }

    /// `DELETE /api/metrics/ketones/:date`: 204; 404 when that day has no ketone level.
    @Sendable func removeKetones(request: Request, context: AppRequestContext) async throws -> HTTPResponse.Status {
        try await remove(\.ketones, named: "ketone level", request: request, context: context)
    }

    /// `GET /api/metrics/daily?days=7&unit=`: every recorded day of the range with its weight, ketone level,
    /// `inKetosis` and notes, oldest first; days without a record are left out.
    @Sendable func daily(request: Request, context: AppRequestContext) async throws -> MetricsListBody<DailyMetricsBody> {
        let (range, unit, records) = try await recordedDays(request, defaultDays: 7)
        return MetricsListBody(from: range.lowerBound, to: range.upperBound, entries: records.map { DailyMetricsBody($0, unit: unit) })
    }

    /// Removes one measurement of the caller's `:date`; 404 when that day has none.
    private func remove(
        _ measurement: WritableKeyPath<DailyMetrics, Double?> & Sendable, named name: String, request: Request, context: AppRequestContext
    ) async throws -> HTTPResponse.Status {
        let caller = try CallerIdentity(request)
        let date = try Self.pathDate(context)
        _ = try await store.change(userId: caller.userId, date: date) { day in
            guard day[keyPath: measurement] != nil else { throw APIError.notFound("No \(name) was logged on \(date).") }
            day[keyPath: measurement] = nil
        }
        return .noContent
    }

    /// The caller's recorded days of the last `days` days and the unit asked for (or preferred).
    private func recordedDays(_ request: Request, defaultDays: Int = 30) async throws -> (
        range: ClosedRange<CalendarDate>, unit: WeightUnit, days: [DailyMetrics]
    ) {
        let caller = try CallerIdentity(request)
        let profile = try await profiles.profile(of: caller.userId, client: client)
        var fields = MetricsFieldReader(profile: profile, now: now())
        let range = fields.dayRange(request.uri.queryParameters["days"].map(String.init), defaultDays: defaultDays)
        let unit = fields.unit(request.uri.queryParameters["unit"].map(String.init))
        try fields.check()
        let records = try await days.list(userId: caller.userId, from: range.lowerBound, to: range.upperBound, client: client)
        return (range, unit, records)
    }

    /// The `:date` path parameter; 404 for anything that is not a date (no such record can exist).
    private static func pathDate(_ context: AppRequestContext) throws -> CalendarDate {
        guard let date = context.parameters.get("date").flatMap({ CalendarDate($0) }) else {
            throw APIError.notFound("No such day; use a date such as 2026-05-01.")
        }
        return date
    }
}

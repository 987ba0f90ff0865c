import Foundation
import Hummingbird
import ServiceDefaults
import SyncContracts

/// `POST /api/sync/metrics/import` {"weighIns": [{date, weight, unit?, notes?, modifiedAt?}], "ketones": [{date, level,
/// notes?, modifiedAt?}], "water": [{id, millilitres, date?, modifiedAt?}]} (any of the three, 1 to 500 items in all):
/// a device's local store, each item applied on its own (its own transaction and event, last-write-wins as a single
/// write), answered per item in request order (weigh-ins, ketones, water). An item without `modifiedAt` only fills
/// what was never written (a day without that measurement, an unknown water id), so a store sent again changes
/// nothing. A day before the user's kept history is `rejected` (`beyond_history_retention`), as is an item that cannot
/// be read or is invalid, with its problems; never a 4xx for the whole request.
struct MetricsImportController: Sendable {
    let store: any BodyMetricsStore
    let now: @Sendable () -> Date

    static let itemType = "weigh_in"
    static let ketonesType = "ketones"

    /// The import body; items are read one by one so that one unreadable item rejects only itself.
    struct ImportRequest: Decodable, Sendable {
        var weighIns: [JSONValue]?
        var ketones: [JSONValue]?
        var water: [JSONValue]?
    }

    /// One weigh-in as `POST /api/metrics/weight` takes it, but `date` is required (it is the item's id).
    struct Item: Codable, Sendable {
        var date: String
        var weight: Double
        var unit: String?
        var notes: String?
        var modifiedAt: String?

        var request: WeightRequest { WeightRequest(date: date, weight: weight, unit: unit, notes: notes, modifiedAt: modifiedAt) }
    }

    /// One ketone level as `POST /api/metrics/ketones` takes it, but `date` is required (it is the item's id).
    struct KetonesItem: Codable, Sendable {
        var date: String
        var level: Double
        var notes: String?
        var modifiedAt: String?
    }

    /// Thrown inside a change to leave a day that already has the imported value untouched.
    private struct AlreadyPresent: Error {}

    func addRoutes(to router: Router<AppRequestContext>) {
        router.post("/api/sync/metrics/import", use: importWeighIns)
    }

    @Sendable func importWeighIns(request: Request, context: AppRequestContext) async throws -> SyncImportResponse {
        let caller = try CallerIdentity(request)
        let body = try await request.decodeJSON(as: ImportRequest.self, context: context, upTo: SyncImportLimits.maximumBodyBytes)
        let count = (body.weighIns?.count ?? 0) + (body.ketones?.count ?? 0) + (body.water?.count ?? 0)
        guard (1...SyncImportLimits.maximumItems).contains(count) else {
            throw APIError.invalid(["weighIns": "Send 1 to \(SyncImportLimits.maximumItems) weigh-ins, ketone levels and water entries in all."])
        }
        let profile = try await store.profile(of: caller.userId, logger: context.logger)
        var results: [SyncImportResult] = []
        for item in body.weighIns ?? [] {
            results.append(try await importWeighIn(try SyncImportItem(item), userId: caller.userId, profile: profile, context: context))
        }
        for item in body.ketones ?? [] {
            results.append(try await importKetones(try SyncImportItem(item), userId: caller.userId, profile: profile, context: context))
        }
        for item in body.water ?? [] {
            results.append(try await importWater(try SyncImportItem(item), userId: caller.userId, profile: profile, context: context))
        }
        return SyncImportResponse(results: results)
    }

    /// Applies one weigh-in; a problem with the item becomes its `rejected` result. Anything else (the database gone)
    /// fails the request: the items before it are stored, and importing again answers them `already_present`.
    private func importWeighIn(
        _ item: SyncImportItem, userId: UUID, profile: MetricsProfile, context: AppRequestContext
    ) async throws -> SyncImportResult {
        let id = item.string("date")
        do {
            let weighIn = try item.decoded(as: Item.self).request.values(profile: profile, now: now(), body: item.bytes)
            if let refusal = profile.retention?.refusal(of: weighIn.date, field: "date", now: now()) { throw refusal }
            let outcome = try await store.change(
                userId: userId, date: weighIn.date, write: DayWrite(stamp: weighIn.stamp, isServerTimed: weighIn.isServerTimed),
                logger: context.logger
            ) { day in
                // Without `modifiedAt` the item's age is unknown: it fills a day never written, and never overrides
                // (or brings back) what another device wrote, so a store sent again changes nothing.
                if weighIn.isServerTimed, day.version > 0 { throw AlreadyPresent() }
                if let stored = day.weightKg, WeightUnit.kg.display(stored) == WeightUnit.kg.display(weighIn.kilograms) { throw AlreadyPresent() }
                day.weightKg = weighIn.kilograms
                if let notes = weighIn.notes { day.notes = notes.isEmpty ? nil : notes }
            }
            return Self.result(outcome, type: Self.itemType, id: id, wasAbsent: { $0.weightKg == nil })
        } catch is AlreadyPresent {
            return SyncImportResult(type: Self.itemType, id: id, status: .alreadyPresent)
        } catch let error as APIError {
            return try .rejected(type: Self.itemType, id: id, because: error)
        }
    }

    /// Applies one ketone level, as `importWeighIn` a weigh-in. Without `modifiedAt` it fills a day without a level
    /// (a day that has only a weight included), never an emptied day.
    private func importKetones(
        _ item: SyncImportItem, userId: UUID, profile: MetricsProfile, context: AppRequestContext
    ) async throws -> SyncImportResult {
        let id = item.string("date")
        do {
            let body = try item.decoded(as: KetonesItem.self)
            var fields = MetricsFieldReader(profile: profile, now: now())
            let date = fields.date(body.date)
            let level = fields.ketones(body.level)
            let notes = fields.notes(body.notes)
            let stamp = fields.stamp(body.modifiedAt, body: item.bytes)
            try fields.check()
            guard let date, let level, let stamp else { throw APIError.invalid([:]) }
            if let refusal = profile.retention?.refusal(of: date, field: "date", now: now()) { throw refusal }
            let isServerTimed = body.modifiedAt == nil
            let outcome = try await store.change(
                userId: userId, date: date, write: DayWrite(stamp: stamp, isServerTimed: isServerTimed), logger: context.logger
            ) { day in
                if isServerTimed, day.ketones != nil || (day.version > 0 && day.isEmpty) { throw AlreadyPresent() }
                if day.ketones == level { throw AlreadyPresent() }
                day.ketones = level
                if let notes { day.notes = notes.isEmpty ? nil : notes }
            }
            return Self.result(outcome, type: Self.ketonesType, id: id, wasAbsent: { $0.ketones == nil })
        } catch is AlreadyPresent {
            return SyncImportResult(type: Self.ketonesType, id: id, status: .alreadyPresent)
        } catch let error as APIError {
            return try .rejected(type: Self.ketonesType, id: id, because: error)
        }
    }

    /// Applies one water entry under the client's id (required). Without `modifiedAt` it only creates an id never
    /// written; a removed id stays removed (`already_present`).
    private func importWater(
        _ item: SyncImportItem, userId: UUID, profile: MetricsProfile, context: AppRequestContext
    ) async throws -> SyncImportResult {
        let id = item.string("id")
        do {
            let body = try item.decoded(as: WaterRequest.self)
            guard body.id != nil else { throw APIError.invalid(["id": "Give every water entry the UUID the device stores it under."]) }
            var write = try body.write(profile: profile, now: now(), body: item.bytes)
            write.keepsExisting = body.modifiedAt == nil
            if let refusal = profile.retention?.refusal(of: write.date, field: "date", now: now()) { throw refusal }
            switch try await store.changeWater(userId: userId, write, logger: context.logger) {
            case .created: return SyncImportResult(type: WaterEntry.syncType, id: id, status: .created)
            case .updated: return SyncImportResult(type: WaterEntry.syncType, id: id, status: .updated)
            case .unchanged, .ignored, .deletionPreserved, .removed:
                return SyncImportResult(type: WaterEntry.syncType, id: id, status: .alreadyPresent)
            }
        } catch let error as APIError {
            return try .rejected(type: WaterEntry.syncType, id: id, because: error)
        }
    }

    /// The result of a day's write: `created` when the measurement was absent before, else `updated`.
    private static func result(
        _ outcome: DayChangeOutcome, type: String, id: String, wasAbsent: (DailyMetrics) -> Bool
    ) -> SyncImportResult {
        switch outcome {
        case .applied(let before, _): SyncImportResult(type: type, id: id, status: wasAbsent(before) ? .created : .updated)
        case .unchanged, .ignored: SyncImportResult(type: type, id: id, status: .alreadyPresent)
        }
    }
}

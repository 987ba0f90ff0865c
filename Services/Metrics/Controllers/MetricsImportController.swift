import Foundation
import Hummingbird
import ServiceDefaults
import SyncContracts

/// `POST /api/sync/metrics/import` {"weighIns": [{date, weight, unit?, notes?, modifiedAt?}]}: up to 500 weigh-ins from
/// a device's local store, each applied on its own (its own transaction and `weight.logged`, last-write-wins as a
/// single write), answered per item in request order. An item without `modifiedAt` only fills a day never written, so
/// a store sent again changes nothing. A day before the user's kept history is `rejected` (`beyond_history_retention`),
/// as is an item that cannot be read or is invalid, with its problems; never a 4xx for the whole request.
struct MetricsImportController: Sendable {
    let store: any BodyMetricsStore
    let now: @Sendable () -> Date

    static let itemType = "weigh_in"

    /// The import body; items are read one by one so that one unreadable item rejects only itself.
    struct ImportRequest: Decodable, Sendable {
        var weighIns: [JSONValue]
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

    /// Thrown inside a change to leave a day that already has the imported weight untouched.
    private struct AlreadyPresent: Error {}

    func addRoutes(to router: Router<AppRequestContext>) {
        router.post("/api/sync/metrics/import", use: importWeighIns)
    }

    @Sendable func importWeighIns(request: Request, context: AppRequestContext) async throws -> SyncImportResponse {
        let caller = try CallerIdentity(request)
        let body = try await request.decodeJSON(as: ImportRequest.self, context: context, upTo: SyncImportLimits.maximumBodyBytes)
        guard (1...SyncImportLimits.maximumItems).contains(body.weighIns.count) else {
            throw APIError.invalid(["weighIns": "Send 1 to \(SyncImportLimits.maximumItems) weigh-ins."])
        }
        let profile = try await store.profile(of: caller.userId, logger: context.logger)
        var results: [SyncImportResult] = []
        for item in body.weighIns {
            results.append(try await importOne(item, userId: caller.userId, profile: profile, context: context))
        }
        return SyncImportResponse(results: results)
    }

    /// Applies one item; a problem with the item becomes its `rejected` result. Anything else (the database gone) fails
    /// the request: the items before it are stored, and importing again answers them `already_present`.
    private func importOne(
        _ item: JSONValue, userId: UUID, profile: MetricsProfile, context: AppRequestContext
    ) async throws -> SyncImportResult {
        let item = try SyncImportItem(item)
        let id = item.string("date")
        do {
            let weighIn = try item.decoded(as: Item.self, what: "weigh-in").request.values(profile: profile, now: now(), body: item.bytes)
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
            switch outcome {
            case .applied(let before, _):
                return SyncImportResult(type: Self.itemType, id: id, status: before.weightKg == nil ? .created : .updated)
            case .unchanged, .ignored:
                return SyncImportResult(type: Self.itemType, id: id, status: .alreadyPresent)
            }
        } catch is AlreadyPresent {
            return SyncImportResult(type: Self.itemType, id: id, status: .alreadyPresent)
        } catch let error as APIError {
            return try .rejected(type: Self.itemType, id: id, because: error)
        }
    }
}

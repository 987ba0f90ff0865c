import ServiceDefaults
import SyncContracts

/// The body of `POST /api/sync/import`: a device's local meals and weigh-ins, each item as its area's import takes it
/// (the gateway checks only how many there are; the areas check each item).
struct SyncImportRequest: Codable, Sendable, Equatable {
    var meals: [JSONValue]?
    var weighIns: [JSONValue]?

    /// All items, meals and weigh-ins.
    var itemCount: Int { (meals?.count ?? 0) + (weighIns?.count ?? 0) }

    /// 422 when the import is empty or over `SyncImportLimits.maximumItems`.
    func validate() throws {
        if itemCount == 0 {
            throw APIError.invalid(["meals": "Send at least one meal or weigh-in.", "weighIns": "Send at least one meal or weigh-in."])
        }
        if itemCount > SyncImportLimits.maximumItems {
            throw APIError.invalid(["items": "Send at most \(SyncImportLimits.maximumItems) meals and weigh-ins in all; split the import."])
        }
    }

    /// The part for the meals service (`{"meals": [...]}`), nil when there are no meals.
    var mealsPart: SyncImportRequest? { meals.flatMap { $0.isEmpty ? nil : SyncImportRequest(meals: $0) } }

    /// The part for the metrics service (`{"weighIns": [...]}`), nil when there are no weigh-ins.
    var weighInsPart: SyncImportRequest? { weighIns.flatMap { $0.isEmpty ? nil : SyncImportRequest(weighIns: $0) } }
}

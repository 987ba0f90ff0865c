import ServiceDefaults
import SyncContracts

/// The body of `POST /api/sync/import`: a device's local meals, custom meals, weigh-ins, ketone levels and water
/// entries, each item as its area's import takes it (the gateway checks only how many there are; the areas check each
/// item).
struct SyncImportRequest: Codable, Sendable, Equatable {
    var meals: [JSONValue]?
    var customMeals: [JSONValue]?
    var weighIns: [JSONValue]?
    var ketones: [JSONValue]?
    var water: [JSONValue]?

    /// All items of every kind.
    var itemCount: Int { [meals, customMeals, weighIns, ketones, water].reduce(0) { $0 + ($1?.count ?? 0) } }

    /// 422 when the import is empty or over `SyncImportLimits.maximumItems`.
    func validate() throws {
        if itemCount == 0 {
            let problem = "Send at least one meal, custom meal, weigh-in, ketone level or water entry."
            throw APIError.invalid(["meals": problem, "weighIns": problem])
        }
        if itemCount > SyncImportLimits.maximumItems {
            throw APIError.invalid(["items": "Send at most \(SyncImportLimits.maximumItems) items in all; split the import."])
        }
    }

    /// The part for the meals service (`{"meals": [...], "customMeals": [...]}`), nil when it has no items.
    var mealsPart: SyncImportRequest? {
        let part = SyncImportRequest(meals: Self.nonEmpty(meals), customMeals: Self.nonEmpty(customMeals))
        return part.itemCount == 0 ? nil : part
    }

    /// The part for the metrics service (`{"weighIns": [...], "ketones": [...], "water": [...]}`), nil when it has no
    /// items.
    var metricsPart: SyncImportRequest? {
        let part = SyncImportRequest(weighIns: Self.nonEmpty(weighIns), ketones: Self.nonEmpty(ketones), water: Self.nonEmpty(water))
        return part.itemCount == 0 ? nil : part
    }

    private static func nonEmpty(_ items: [JSONValue]?) -> [JSONValue]? { items.flatMap { $0.isEmpty ? nil : $0 } }
}

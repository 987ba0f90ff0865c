import FoodData
import Foundation
import PostgresNIO
import SyncContracts
import WireJSON

/// The JSON columns of a meal row, and the decoding of a whole row back into a `MealRecord`.
struct MealJSON {
    var items: String
    var totals: String
    var health: String?
    var diet: String
    var unrecognised: String

    private static let encoder: JSONEncoder = {
        let encoder = WireJSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return encoder
    }()

    init(_ meal: MealRecord) throws {
        func json(_ value: some Encodable) throws -> String { String(decoding: try Self.encoder.encode(value), as: UTF8.self) }
        items = try json(meal.items)
        totals = try json(meal.totals)
        health = try meal.health.map(json)
        diet = try json(meal.diet)
        unrecognised = try json(meal.unrecognised)
    }

    /// A meal from a row selected with `MealRepository`'s column list.
    static func record(from row: PostgresRow) throws -> MealRecord {
        let columns = row.makeRandomAccess()
        let decoder = JSONDecoder()
        func json<Value: Decodable>(_ column: String, as type: Value.Type) throws -> Value {
            try decoder.decode(type, from: Data(try columns[column].decode(String.self).utf8))
        }
        let healthJSON = try columns["health"].decode(String?.self)
        return MealRecord(
            id: try columns["id"].decode(UUID.self),
            userId: try columns["user_id"].decode(UUID.self),
            origin: MealOrigin(rawValue: try columns["origin"].decode(String.self)) ?? .manual,
            title: try columns["title"].decode(String.self),
            description: try columns["description"].decode(String?.self),
            mealType: try columns["meal_type"].decode(String?.self).flatMap(MealType.init(rawValue:)),
            captureKind: CaptureKind(rawValue: try columns["capture_kind"].decode(String.self)) ?? .fullMeal,
            eatenAt: try columns["eaten_at"].decode(Date.self),
            localDate: try columns["local_date"].decode(String.self),
            timeZone: try columns["time_zone"].decode(String.self),
            isConsumed: try columns["is_consumed"].decode(Bool.self),
            consumedAt: try columns["consumed_at"].decode(Date?.self),
            notes: try columns["notes"].decode(String?.self),
            edited: try columns["edited"].decode(Bool.self),
            version: try columns["version"].decode(Int.self),
            items: try json("items", as: [MealItem].self),
            totals: try json("totals", as: NutrientProfile.self),
            health: try healthJSON.map { try decoder.decode(MealHealth.self, from: Data($0.utf8)) },
            diet: try json("diet", as: DietScore.self),
            unrecognised: try json("unrecognised", as: [String].self),
            photoId: try columns["photo_id"].decode(UUID?.self),
            tags: try columns["tags"].decode([String].self),
            createdAt: try columns["created_at"].decode(Date.self),
            updatedAt: try columns["updated_at"].decode(Date.self),
            modified: WriteStamp(
                try columns["modified_at"].decode(Date.self), tiebreak: try columns["modified_tiebreak"].decode(String.self)))
    }
}

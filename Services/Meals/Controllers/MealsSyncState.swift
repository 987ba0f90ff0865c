/// The state of one entity of the meals area's changes feed: a meal or a custom meal, as their own `GET` answers them.
enum MealsSyncState: Codable, Sendable {
    case meal(MealBody)
    case customMeal(CustomMealBody)

    init(from decoder: any Decoder) throws {
        if let meal = try? MealBody(from: decoder) {
            self = .meal(meal)
        } else {
            self = .customMeal(try CustomMealBody(from: decoder))
        }
    }

    func encode(to encoder: any Encoder) throws {
        switch self {
        case .meal(let body): try body.encode(to: encoder)
        case .customMeal(let body): try body.encode(to: encoder)
        }
    }
}

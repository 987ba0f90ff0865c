import Foundation

/// Energy and macronutrients of an item or a whole meal.
public struct NutrientTotals: Codable, Sendable, Equatable {
    public var calories: Double
    public var proteinGrams: Double
    public var carbsGrams: Double
    public var fatGrams: Double
    public var fiberGrams: Double

    public init(calories: Double, proteinGrams: Double, carbsGrams: Double, fatGrams: Double, fiberGrams: Double) {
        self.calories = calories
        self.proteinGrams = proteinGrams
        self.carbsGrams = carbsGrams
        self.fatGrams = fatGrams
        self.fiberGrams = fiberGrams
    }
}

/// The state of a meal as carried by meal events (event-carried state: consumers need nothing else).
public struct MealSnapshot: Codable, Sendable, Equatable {
    public var mealId: UUID
    public var userId: UUID
    public var mealType: String?
    public var captureKind: String?
    public var itemNames: [String]
    public var totals: NutrientTotals
    public var healthScore: Int?
    public var dietScore: Int?
    public var dietPreference: String?
    public var eatenAt: Date?
    /// The user's calendar date of `eatenAt` (or of the analysis), `YYYY-MM-DD`.
    public var localDate: String
    public var notes: String?
    /// Increases with every edit, so consumers can ignore stale copies.
    public var version: Int

    public init(
        mealId: UUID, userId: UUID, mealType: String?, captureKind: String?, itemNames: [String], totals: NutrientTotals,
        healthScore: Int?, dietScore: Int?, dietPreference: String?, eatenAt: Date?, localDate: String, notes: String?,
        version: Int
    ) {
        self.mealId = mealId
        self.userId = userId
        self.mealType = mealType
        self.captureKind = captureKind
        self.itemNames = itemNames
        self.totals = totals
        self.healthScore = healthScore
        self.dietScore = dietScore
        self.dietPreference = dietPreference
        self.eatenAt = eatenAt
        self.localDate = localDate
        self.notes = notes
        self.version = version
    }
}

/// `meal.analyzed`: a photo or description was analysed into a (not yet consumed) meal.
public struct MealAnalyzed: EventPayload {
    public static let topic = Topic.mealAnalyzed
    public static let schemaVersion = 1
    public var meal: MealSnapshot
    public init(meal: MealSnapshot) { self.meal = meal }
}

/// `meal.consumed`: a meal counts toward the user's day; sent again with the full state after every edit.
public struct MealConsumed: EventPayload {
    public static let topic = Topic.mealConsumed
    public static let schemaVersion = 1
    public var meal: MealSnapshot
    public init(meal: MealSnapshot) { self.meal = meal }
}

/// `meal.deleted`: a meal no longer counts (unconsumed or deleted).
public struct MealDeleted: EventPayload {
    public static let topic = Topic.mealDeleted
    public static let schemaVersion = 1

    public var mealId: UUID
    public var userId: UUID
    /// `unconsumed` or `deleted`.
    public var reason: String
    public var version: Int

    public init(mealId: UUID, userId: UUID, reason: String, version: Int) {
        self.mealId = mealId
        self.userId = userId
        self.reason = reason
        self.version = version
    }
}

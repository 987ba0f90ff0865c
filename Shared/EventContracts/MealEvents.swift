import Foundation

/// Energy and nutrients of an item or a whole meal (grams unless the name says otherwise).
public struct NutrientTotals: Codable, Sendable, Equatable {
    public var calories: Double
    public var proteinGrams: Double
    public var carbsGrams: Double
    public var fatGrams: Double
    public var fiberGrams: Double
    public var sugarsGrams: Double
    public var saturatedFatGrams: Double
    public var sodiumMilligrams: Double

    public init(
        calories: Double, proteinGrams: Double, carbsGrams: Double, fatGrams: Double, fiberGrams: Double,
        sugarsGrams: Double = 0, saturatedFatGrams: Double = 0, sodiumMilligrams: Double = 0
    ) {
        self.calories = calories
        self.proteinGrams = proteinGrams
        self.carbsGrams = carbsGrams
        self.fatGrams = fatGrams
        self.fiberGrams = fiberGrams
        self.sugarsGrams = sugarsGrams
        self.saturatedFatGrams = saturatedFatGrams
        self.sodiumMilligrams = sodiumMilligrams
    }
}

/// One item of a meal as carried by meal events.
public struct MealSnapshotItem: Codable, Sendable, Equatable {
    public var name: String
    public var amount: Double
    public var unit: String
    public var grams: Double
    public var nutrients: NutrientTotals
    public var healthScore: Int
    /// nutritious, good, fair or limited.
    public var healthRating: String
    /// database (matched to the USDA table), estimate (the vision model's own numbers), manual (typed by the user) or
    /// product (a packaged product's label).
    public var source: String
    /// The packaged product (`food.product_changed`) the numbers come from, for `source` product.
    public var productId: UUID?

    public init(
        name: String, amount: Double, unit: String, grams: Double, nutrients: NutrientTotals, healthScore: Int,
        healthRating: String, source: String, productId: UUID? = nil
    ) {
        self.productId = productId
        self.name = name
        self.amount = amount
        self.unit = unit
        self.grams = grams
        self.nutrients = nutrients
        self.healthScore = healthScore
        self.healthRating = healthRating
        self.source = source
    }
}

/// The full state of a meal as carried by meal events (event-carried state: consumers need nothing else).
public struct MealSnapshot: Codable, Sendable, Equatable {
    public var mealId: UUID
    public var userId: UUID
    /// A short name made from the items ("Eggs, toast and orange juice").
    public var title: String
    /// photo, text, manual or custom_meal.
    public var origin: String
    /// breakfast, lunch, dinner or snack.
    public var mealType: String?
    /// full_meal, snack or quick_add.
    public var captureKind: String
    public var eatenAt: Date
    /// The user's calendar date of `eatenAt` in `timeZone`, `YYYY-MM-DD`.
    public var localDate: String
    /// The IANA time zone `localDate` was computed in.
    public var timeZone: String
    /// Whether the meal counts toward the user's day (consumed) or was only scanned.
    public var isConsumed: Bool
    public var edited: Bool
    public var notes: String?
    public var hasPhoto: Bool
    /// The meal's photo (lower case), whose signed URLs consumers may hand out (`/media/photos/<photoId>/thumbnail`);
    /// absent without a photo and from events published before it was carried.
    public var photoId: UUID?
    /// The user's tags of the meal, in lower case; absent from events published before tags existed.
    public var tags: [String]?
    public var items: [MealSnapshotItem]
    public var totals: NutrientTotals
    public var healthScore: Int?
    public var healthRating: String?
    /// The diet the diet score was computed for.
    public var dietPreference: String
    public var dietScore: Int
    /// green, yellow or red.
    public var dietBand: String
    public var dietExplanation: String
    /// Increases with every change, so consumers can ignore stale copies.
    public var version: Int

    public init(
        mealId: UUID, userId: UUID, title: String, origin: String, mealType: String?, captureKind: String, eatenAt: Date,
        localDate: String, timeZone: String, isConsumed: Bool, edited: Bool, notes: String?, hasPhoto: Bool, photoId: UUID? = nil,
        tags: [String]? = nil,
        items: [MealSnapshotItem], totals: NutrientTotals, healthScore: Int?, healthRating: String?, dietPreference: String,
        dietScore: Int, dietBand: String, dietExplanation: String, version: Int
    ) {
        self.mealId = mealId
        self.userId = userId
        self.title = title
        self.origin = origin
        self.mealType = mealType
        self.captureKind = captureKind
        self.eatenAt = eatenAt
        self.localDate = localDate
        self.timeZone = timeZone
        self.isConsumed = isConsumed
        self.edited = edited
        self.notes = notes
        self.hasPhoto = hasPhoto
        self.photoId = photoId
        self.tags = tags
        self.items = items
        self.totals = totals
        self.healthScore = healthScore
        self.healthRating = healthRating
        self.dietPreference = dietPreference
        self.dietScore = dietScore
        self.dietBand = dietBand
        self.dietExplanation = dietExplanation
        self.version = version
    }
}

/// `meal.analyzed`: a meal was analysed (photo, text, manual entry), or a meal that is not consumed changed;
/// always the full current state.
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

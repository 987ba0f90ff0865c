/// An item as a client writes it (manual entry, edits, custom meals): a table food by id with a portion
/// (`grams`, or `quantity` and `unit`), or free values (`name`, `grams`, `calories` and optional nutrients).
struct ItemRequest: Codable, Sendable, Equatable {
    var foodId: String?
    var name: String?
    var quantity: Double?
    var unit: String?
    var grams: Double?
    var calories: Double?
    var protein: Double?
    var carbs: Double?
    var fat: Double?
    var fiber: Double?
    var sugars: Double?
    var saturatedFat: Double?
    var sodium: Double?

    /// The request that reproduces a stored item: its table food and grams, or its values.
    init(item: MealItem) {
        if let foodId = item.foodId {
            self.init(foodId: foodId, name: item.name, grams: item.grams)
        } else {
            self.init(
                name: item.name, grams: item.grams, calories: item.calories, protein: item.protein, carbs: item.carbs, fat: item.fat,
                fiber: item.fiber, sugars: item.sugars, saturatedFat: item.saturatedFat, sodium: item.sodium)
        }
    }

    init(
        foodId: String? = nil, name: String? = nil, quantity: Double? = nil, unit: String? = nil, grams: Double? = nil,
        calories: Double? = nil, protein: Double? = nil, carbs: Double? = nil, fat: Double? = nil, fiber: Double? = nil,
        sugars: Double? = nil, saturatedFat: Double? = nil, sodium: Double? = nil
    ) {
        self.foodId = foodId
        self.name = name
        self.quantity = quantity
        self.unit = unit
        self.grams = grams
        self.calories = calories
        self.protein = protein
        self.carbs = carbs
        self.fat = fat
        self.fiber = fiber
        self.sugars = sugars
        self.saturatedFat = saturatedFat
        self.sodium = sodium
    }

    /// The free nutrient values given, by field name.
    var values: [(field: String, value: Double?)] {
        [("calories", calories), ("protein", protein), ("carbs", carbs), ("fat", fat), ("fiber", fiber), ("sugars", sugars),
         ("saturatedFat", saturatedFat), ("sodium", sodium)]
    }
}

import Foundation

/// An item as a client writes it (manual entry, edits, custom meals): a table food by id with a portion
/// (`grams`, or `quantity` and `unit`), a packaged product by id with `grams` or `servings`, or free values (`name`,
/// `grams`, `calories` and optional nutrients).
struct ItemRequest: Codable, Sendable, Equatable {
    var foodId: String?
    /// A packaged product of the foods service (`GET /api/foods/barcode/{code}` answers its id).
    var productId: UUID?
    /// Servings of the product, by the serving size on its label.
    var servings: Double?
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

    /// The request that reproduces a stored item: its product or table food and grams, or its values.
    init(item: MealItem) {
        if let productId = item.productId {
            self.init(productId: productId, name: item.name, grams: item.grams)
        } else if let foodId = item.foodId {
            self.init(foodId: foodId, name: item.name, grams: item.grams)
        } else {
            self.init(
                name: item.name, grams: item.grams, calories: item.calories, protein: item.protein, carbs: item.carbs, fat: item.fat,
                fiber: item.fiber, sugars: item.sugars, saturatedFat: item.saturatedFat, sodium: item.sodium)
        }
    }

    init(
        foodId: String? = nil, productId: UUID? = nil, servings: Double? = nil, name: String? = nil, quantity: Double? = nil,
        unit: String? = nil, grams: Double? = nil, calories: Double? = nil, protein: Double? = nil, carbs: Double? = nil,
        fat: Double? = nil, fiber: Double? = nil, sugars: Double? = nil, saturatedFat: Double? = nil, sodium: Double? = nil
    ) {
        self.foodId = foodId
        self.productId = productId
        self.servings = servings
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
        [
            ("calories", calories), ("protein", protein), ("carbs", carbs), ("fat", fat), ("fiber", fiber), ("sugars", sugars),
            ("saturatedFat", saturatedFat), ("sodium", sodium),
        ]
    }
}

import FoodData

/// One food as `FoodRepository.allFoods` reads it from the table's JSON (the columns by their Swift names).
struct FoodRow: Decodable, Sendable {
    var id: String
    var name: String
    var calories: Double
    var protein: Double
    var carbs: Double
    var fat: Double
    var fiber: Double
    var sugars: Double
    var saturatedFat: Double
    var sodium: Double
    var measures: [HouseholdMeasure]
    var traits: FoodTraits

    /// The catalog's record of this food (its group from its id).
    var record: FoodRecord {
        FoodRecord(
            id: id, name: name, group: FoodGroup(foodId: id),
            per100g: NutrientProfile(
                calories: calories, protein: protein, carbs: carbs, fat: fat, fiber: fiber, sugars: sugars, saturatedFat: saturatedFat,
                sodium: sodium),
            measures: measures, traits: traits)
    }
}

/// One food of the composition table as the analyser and the scorers see it.
public struct FoodRecord: Sendable, Equatable {
    /// The USDA NDB number, e.g. `01123`.
    public var id: String
    public var name: String
    public var group: FoodGroup
    /// Nutrients per 100 g.
    public var per100g: NutrientProfile
    public var measures: [HouseholdMeasure]
    public var traits: FoodTraits

    public init(id: String, name: String, group: FoodGroup, per100g: NutrientProfile, measures: [HouseholdMeasure], traits: FoodTraits) {
        self.id = id
        self.name = name
        self.group = group
        self.per100g = per100g
        self.measures = measures
        self.traits = traits
    }

    /// A record from a line of the USDA data file, deriving the group and the traits.
    public init(source: FoodSource) {
        let group = FoodGroup(foodId: source.id)
        func nutrient(_ name: String) -> Double { max(0, source.nutrients[name] ?? 0) }
        self.init(
            id: source.id, name: source.name, group: group,
            per100g: NutrientProfile(
                calories: nutrient("Energy"), protein: nutrient("Protein"), carbs: nutrient("Carbs"), fat: nutrient("Fat"),
                fiber: nutrient("Fiber"), sugars: nutrient("Sugars"), saturatedFat: nutrient("Saturated"), sodium: nutrient("Sodium")),
            measures: source.measures.filter { $0.grams > 0 },
            traits: FoodTraits(group: group, name: source.name))
    }
}

import EventContracts
import FoodData
import Foundation

/// A packaged product as meals knows it: the last `food.product_changed` of it. Its nutrients per 100 g (or 100 ml,
/// read as grams) scale to a portion; what the product does not give counts as 0 and flags the item
/// (`nutrients_incomplete`). Its traits for the scorers start from its name, as a free item's do, and take what the
/// product states over that: NOVA for processing, allergens (milk is dairy, eggs egg, fish and shellfish fish, gluten
/// grain) and the vegan and vegetarian flags.
struct PackagedProduct: Sendable, Equatable {
    var event: FoodProductChanged

    var id: UUID { event.productId }
    var name: String { event.name }

    /// Whether `caller` may log it without having logged it before: offered ones by everyone, one held after reports
    /// by its author (and, `ItemFoods.loggable`, by whoever logged it before it was held).
    func isLoggable(by caller: UUID) -> Bool { event.offered || event.authorId == caller }

    /// Grams (or millilitres) of one serving, when the label gives it.
    var servingGrams: Double? { event.servingSize?.amount }

    /// Whether energy and the three macronutrients are all known.
    var isComplete: Bool {
        let per100 = event.per100
        return per100.calories != nil && per100.protein != nil && per100.carbs != nil && per100.fat != nil
    }

    /// The nutrients of `grams` of it; unknown ones count as 0.
    func nutrients(grams: Double) -> NutrientProfile {
        let per100 = event.per100
        return NutrientProfile(
            calories: per100.calories ?? 0, protein: per100.protein ?? 0, carbs: per100.carbs ?? 0, fat: per100.fat ?? 0,
            fiber: per100.fiber ?? 0, sugars: per100.sugars ?? 0, saturatedFat: per100.saturatedFat ?? 0, sodium: per100.sodium ?? 0
        ).scaled(by: grams / 100)
    }

    var traits: FoodTraits {
        var traits = FoodTraits(group: .other, name: event.name)
        let allergens = Set(event.allergens.compactMap(Allergen.init(rawValue:)))
        if allergens.contains(.milk) { traits.isDairy = true }
        if allergens.contains(.eggs) { traits.isEgg = true }
        if !allergens.isDisjoint(with: [.fish, .crustaceans, .molluscs]) { traits.isFish = true }
        if allergens.contains(.gluten) { traits.isGrain = true }
        if event.vegetarian == true || event.vegan == true {
            traits.isMeat = false
            traits.isRedMeat = false
            traits.isFish = false
        }
        if event.vegan == true {
            traits.isDairy = false
            traits.isEgg = false
        }
        // Not vegetarian: meat or fish, which the label does not say; counted as meat.
        if event.vegetarian == false && !traits.isMeat && !traits.isFish { traits.isMeat = true }
        traits.isAnimal = traits.isMeat || traits.isFish || traits.isDairy || traits.isEgg || (traits.isAnimal && event.vegan != true)
        if event.vegan == false && !traits.isAnimal { traits.isAnimal = true }
        if let nova = event.novaGroup.flatMap(ProcessingLevel.init(rawValue:)) { traits.processing = nova }
        return traits
    }
}

import FoodData

/// A Nutri-Score-like judgement of what a food gives (protein, fibre) against what to limit (sugar, saturated fat,
/// sodium), measured per 100 kcal so that foods are compared for the same energy; foods lighter than
/// 100 kcal per 300 g (lettuce, tea, water) are measured per 300 g instead, so a few stray milligrams in a
/// nearly energy-free food do not count as a flood.
struct NutrientDensity: Sendable {
    /// The item's nutrients in the reference amount (100 kcal, or 300 g of a very light food).
    let reference: NutrientProfile
    /// 0...1 each: how far the item gets towards full credit or full penalty.
    let protein: Double, fibre: Double, sugar: Double, saturatedFat: Double, sodium: Double
    /// Whole plant food (not animal, unprocessed, no added sugar): vegetables, fruit, legumes, nuts, whole grains.
    let isWholePlant: Bool
    /// 0-100: 40 + 30 × protein + 30 × fibre + 15 for whole plant food − 40 × sugar − 30 × saturated fat − 30 × sodium.
    let score: Int

    init(_ item: ScorableItem) {
        let per100g = item.per100g
        let factor = per100g.calories > 0 ? min(100 / per100g.calories, 3) : 3
        reference = per100g.scaled(by: factor)
        // Sugar in whole fruit, milk and vegetables is not the free sugar guidance limits; it counts a quarter.
        let countedSugar = item.traits.hasAddedSugar ? reference.sugars : reference.sugars / 4
        // Full credit at 6 g protein (24% of energy) and 3 g fibre; penalties start at the amounts that keep a
        // 2,000 kcal day within guidance (2.5 g free sugar, 1.1 g saturated fat, 120 mg sodium per 100 kcal).
        protein = Self.proteinCredit(reference.protein)
        fibre = Self.fibreCredit(reference.fiber)
        sugar = Self.sugarPenalty(countedSugar)
        saturatedFat = Self.saturatedFatPenalty(reference.saturatedFat)
        sodium = Self.sodiumPenalty(reference.sodium)
        isWholePlant = !item.traits.isAnimal && item.traits.processing == .unprocessed && !item.traits.hasAddedSugar
        let points = 40 + 30 * protein + 30 * fibre + (isWholePlant ? 15 : 0) - 40 * sugar - 30 * saturatedFat - 30 * sodium
        score = Int(score: points)
    }

    private static let proteinCredit = ScoreCurve((0, 0), (6, 1))
    private static let fibreCredit = ScoreCurve((0, 0), (3, 1))
    private static let sugarPenalty = ScoreCurve((2.5, 0), (15, 1))
    private static let saturatedFatPenalty = ScoreCurve((1.1, 0), (4.5, 1))
    private static let sodiumPenalty = ScoreCurve((120, 0), (600, 1))
}

/// A household portion of a food with its weight, e.g. "1 cup slices" = 109 g, "1 large" = 50 g.
struct HouseholdMeasure: Codable, Sendable, Equatable {
    var name: String
    var amount: Double
    var grams: Double

    /// Grams of one unit of this measure (a measure may be listed as "2 slices" = 56 g).
    var gramsPerUnit: Double { amount > 0 ? grams / amount : grams }
}

/// A household portion of a food with its weight, e.g. "1 cup slices" = 109 g, "1 large" = 50 g.
public struct HouseholdMeasure: Codable, Sendable, Equatable {
    public var name: String
    public var amount: Double
    public var grams: Double

    public init(name: String, amount: Double, grams: Double) {
        self.name = name
        self.amount = amount
        self.grams = grams
    }

    /// Grams of one unit of this measure (a measure may be listed as "2 slices" = 56 g).
    public var gramsPerUnit: Double { amount > 0 ? grams / amount : grams }
}

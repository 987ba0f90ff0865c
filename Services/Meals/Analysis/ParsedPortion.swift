/// One food of a written meal description: how much, in what unit, and the words naming the food.
struct ParsedPortion: Equatable, Sendable {
    /// The count or amount written ("2 eggs" → 2, "half a cup" → 0.5); 1 when none was written.
    var quantity: Double
    /// Nil when only a count was written ("2 eggs") or nothing at all ("orange juice").
    var unit: PortionUnit?
    /// The words naming the food, as written ("whole wheat toast").
    var foodPhrase: String
    /// Whether the person wrote a quantity (else the portion is the food's usual serving).
    var quantityWritten: Bool
}

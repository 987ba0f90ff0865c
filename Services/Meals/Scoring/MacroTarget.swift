import EventContracts

/// A target split of a meal's energy: a percent range for protein, net carbs and fat, and how to name it.
struct MacroTarget: Sendable {
    var protein: ClosedRange<Double>
    var carbs: ClosedRange<Double>
    var fat: ClosedRange<Double>
    /// Who the target belongs to in a sentence: "the balanced" or "your".
    var owner: String
    /// Custom targets are one number each with a tolerance, so sentences quote the number, not the range.
    var quotesMidpoints: Bool

    /// The balanced split the product uses: protein 20-30%, carbs 45-55%, fat 25-35% of energy.
    static let balanced = MacroTarget(protein: 20...30, carbs: 45...55, fat: 25...35, owner: "the balanced", quotesMidpoints: false)

    /// A user's own split with ±5 points of tolerance, scaled to add up to 100; nil when it adds up to nothing.
    init?(custom split: MacroSplit) {
        let parts = [split.proteinPercent, split.carbsPercent, split.fatPercent].map { max(0, $0) }
        let total = parts.reduce(0, +)
        guard total > 0 else { return nil }
        let percents = parts.map { $0 * 100 / total }
        func range(_ percent: Double) -> ClosedRange<Double> { (percent - 5)...(percent + 5) }
        self.init(
            protein: range(percents[0]), carbs: range(percents[1]), fat: range(percents[2]), owner: "your", quotesMidpoints: true)
    }

    init(protein: ClosedRange<Double>, carbs: ClosedRange<Double>, fat: ClosedRange<Double>, owner: String, quotesMidpoints: Bool) {
        self.protein = protein
        self.carbs = carbs
        self.fat = fat
        self.owner = owner
        self.quotesMidpoints = quotesMidpoints
    }

    /// One macro's place in the meal against the target.
    struct Miss {
        var macro: String
        /// Percentage points outside the range, positive above it and negative below.
        var points: Double
        var percent: Double
        var target: String
    }

    /// Each macro's miss, in the order protein, carbs, fat, for energy shares given as 0...1.
    func misses(_ shares: (protein: Double, carbs: Double, fat: Double)) -> [Miss] {
        [("protein", shares.protein, protein), ("carbs", shares.carbs, carbs), ("fat", shares.fat, fat)].map { macro, share, range in
            let percent = share * 100
            let outside = percent - min(max(percent, range.lowerBound), range.upperBound)
            return Miss(macro: macro, points: outside, percent: percent, target: describe(range))
        }
    }

    /// Percentage points the meal lies outside the target, summed over the three macros.
    func distance(_ shares: (protein: Double, carbs: Double, fat: Double)) -> Double {
        misses(shares).reduce(0) { $0 + abs($1.points) }
    }

    /// "split of protein 20-30%, carbs 45-55%, fat 25-35%" or "split of protein 40%, carbs 30%, fat 30%".
    var summary: String {
        "split of protein \(describe(protein)), carbs \(describe(carbs)), fat \(describe(fat))"
    }

    private func describe(_ range: ClosedRange<Double>) -> String {
        if quotesMidpoints { return "\(Int(((range.lowerBound + range.upperBound) / 2).rounded()))%" }
        return "\(Int(range.lowerBound))-\(Int(range.upperBound))%"
    }
}

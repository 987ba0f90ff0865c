/// The units a weight is entered and answered in; stored weights are always kilograms.
enum WeightUnit: String, Codable, Sendable, CaseIterable {
    case kg
    case lbs

    /// The international avoirdupois pound.
    static let kilogramsPerPound = 0.45359237

    func kilograms(_ value: Double) -> Double { self == .kg ? value : value * Self.kilogramsPerPound }

    /// `kilograms` in this unit, rounded to hundredths for display.
    func display(_ kilograms: Double) -> Double {
        let value = self == .kg ? kilograms : kilograms / Self.kilogramsPerPound
        return (value * 100).rounded() / 100
    }
}

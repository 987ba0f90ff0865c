/// The values the service accepts; anything outside is a typing error rather than a measurement.
enum BodyMetricLimits {
    static let weightKg: ClosedRange<Double> = 20...500
    /// The same weights in pounds, rounded inwards to a tenth (44.09 and 1102.31 lbs would be the exact ends), so that a
    /// weight is checked in the unit it was given in and the API document can state both ranges exactly.
    static let weightLbs: ClosedRange<Double> = 44.1...1102.3
    /// Blood beta-hydroxybutyrate in mmol/L; meters read up to about 8.
    static let ketones: ClosedRange<Double> = 0...10
    /// Above this level (mmol/L) the user counts as in nutritional ketosis.
    static let ketosisThreshold = 0.5
    /// One water entry in millilitres: a sip to ten litres (a day's intake logged at once); 0 or more is a typing error.
    static let waterMillilitres: ClosedRange<Int> = 1...10_000
    static let notesLength = 500
    /// `days=` of the list routes.
    static let days: ClosedRange<Int> = 1...366
}

/// The values the service accepts; anything outside is a typing error rather than a measurement.
enum BodyMetricLimits {
    static let weightKg: ClosedRange<Double> = 20...500
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

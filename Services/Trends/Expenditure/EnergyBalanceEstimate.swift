import Foundation

/// Expenditure from the energy balance: what the user ate minus what their body stored.
///
/// `expenditure = mean intake of the logged days - weight slope (kg/day) × 7,700 kcal/kg`, with the slope from
/// `WeightLineFit` over the window. Assumptions, each a limit:
/// - unlogged days resemble logged days (people often skip logging on days they eat more, which makes the
///   estimate too low); a partially logged day counts as fully logged, so forgotten meals also bias it low;
/// - a kg of weight change holds 7,700 kcal, the figure for mostly fat; early in a diet more of the change is
///   glycogen and water, which hold far less, so in the first weeks of a new diet the estimate comes out too high;
/// - expenditure is constant over the window (it falls slowly as weight falls), and the estimate is its mean;
/// - logged calories are what was eaten (food labels and portion guesses can be off by 20% per item).
///
/// The standard error combines the slope's (× 7,700) and, when days are unlogged, the sampling error of the
/// mean intake (standard error of the mean with the finite-population correction `√(1 − logged/days)`,
/// which is zero for a fully logged window).
struct EnergyBalanceEstimate: Sendable {
    /// kcal stored or released per kg of body-weight change (≈ 3,500 kcal per lb).
    static let kcalPerKg = 7_700.0
    static let minimumWeighIns = 4
    static let minimumWeighInSpanDays = 14
    static let minimumLoggedDays = 10
    /// A log implying an expenditure outside this is not believed.
    static let plausibleKcal = 1_000.0...6_000.0
    /// The range is never narrower than ± this share of the estimate: logging error the data cannot show.
    static let minimumRangeShare = 0.05

    /// Why the log cannot give an estimate, as one sentence for the user.
    struct Unavailable: Error, Sendable {
        let reason: String
    }

    let expenditure: Double
    let meanIntake: Double
    let fit: WeightLineFit
    /// Standard error of `expenditure`, kcal a day.
    let standardError: Double
    /// Half the width of the about-95% range, kcal a day.
    let rangeHalfWidth: Double

    /// The estimate from `window`, or why the window does not allow one.
    init(window: EstimationWindow) throws(Unavailable) {
        let weighIns = window.weighIns.count
        guard weighIns >= Self.minimumWeighIns else {
            let counted = "\(weighIns) weigh-in\(weighIns == 1 ? "" : "s")"
            throw Unavailable(reason: "\(counted) in the last \(window.days) days; \(Self.minimumWeighIns) are needed")
        }
        guard window.weighInSpanDays >= Self.minimumWeighInSpanDays else {
            throw Unavailable(reason: "Weigh-ins span \(window.weighInSpanDays) days; \(Self.minimumWeighInSpanDays) are needed")
        }
        guard window.loggedDays >= Self.minimumLoggedDays, let meanIntake = window.meanIntake else {
            throw Unavailable(reason: "\(window.loggedDays) days logged; \(Self.minimumLoggedDays) are needed")
        }
        guard let fit = WeightLineFit(window.weighIns, origin: window.from), fit.usedWeighIns >= Self.minimumWeighIns else {
            throw Unavailable(reason: "Too few weigh-ins agree with each other to draw a trend")
        }
        let expenditure = meanIntake - fit.slopeKgPerDay * Self.kcalPerKg
        guard Self.plausibleKcal.contains(expenditure) else {
            let plausible = "\(Int(Self.plausibleKcal.lowerBound))-\(Int(Self.plausibleKcal.upperBound))"
            throw Unavailable(
                reason: "The log implies \(ExpenditureEstimate.kcal(expenditure)) kcal a day, outside the plausible \(plausible);"
                    + " meals or weigh-ins may be missing or wrong")
        }
        let weightError = fit.slopeStandardError * Self.kcalPerKg
        let intakeError = Self.intakeStandardError(window)
        let standardError = (weightError * weightError + intakeError * intakeError).squareRoot()

        self.expenditure = expenditure
        self.meanIntake = meanIntake
        self.fit = fit
        self.standardError = standardError
        self.rangeHalfWidth = max(
            Self.studentT975(degreesOfFreedom: fit.degreesOfFreedom) * standardError, Self.minimumRangeShare * expenditure)
    }

    /// Sampling error of the mean intake when the unlogged days are like the logged ones; 0 when all are logged.
    private static func intakeStandardError(_ window: EstimationWindow) -> Double {
        let n = Double(window.loggedDays)
        guard n >= 2, let mean = window.meanIntake else { return 0 }
        let variance = window.intakes.reduce(0) { $0 + pow($1.kcal - mean, 2) } / (n - 1)
        let unloggedShare = max(0, 1 - n / Double(window.days))
        return (variance / n * unloggedShare).squareRoot()
    }

    /// The 97.5% quantile of Student's t (Cornish-Fisher expansion; within 0.15 of the table for 2 degrees of
    /// freedom, within 0.01 from 5), so a range from few weigh-ins widens as it should.
    static func studentT975(degreesOfFreedom: Int) -> Double {
        let z = 1.959964
        let v = Double(max(degreesOfFreedom, 1))
        let g1 = (pow(z, 3) + z) / 4
        let g2 = (5 * pow(z, 5) + 16 * pow(z, 3) + 3 * z) / 96
        let g3 = (3 * pow(z, 7) + 19 * pow(z, 5) + 17 * pow(z, 3) - 15 * z) / 384
        return z + g1 / v + g2 / (v * v) + g3 / (v * v * v)
    }
}

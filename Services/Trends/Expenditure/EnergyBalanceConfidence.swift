import Foundation

/// The confidence of an energy-balance estimate: a score in 0...1 that is the product of four factors, so any
/// one weak point pulls it down.
///
/// - logged: logged days / window days (unlogged days are the estimate's strongest assumption);
/// - weigh-ins: √(min(1, weigh-ins per week / 3)), full from 3 a week;
/// - length: √(min(1, window days / 28)), since water swings last days and a short window cannot average them out;
/// - precision: 1 / (1 + (standard error / 200 kcal)²), from the scatter of the weigh-ins and the unlogged days.
///
/// Level (see `ExpenditureEstimate.Confidence`): high from 0.7, medium from 0.4, low below. A fully logged
/// 28-day window with daily weigh-ins that scatter ±0.3 kg scores about 0.93; logging half the days halves that.
enum EnergyBalanceConfidence {
    static let fullWeighInsPerWeek = 3.0
    static let precisionScaleKcal = 200.0
    /// A logged day below this share of the median logged day is probably missing meals.
    static let partialDayShare = 0.5

    /// The confidence of `estimate` made from `window`.
    static func rate(_ estimate: EnergyBalanceEstimate, window: EstimationWindow) -> ExpenditureEstimate.Confidence {
        let days = Double(window.days)
        let weighInsPerWeek = Double(window.weighIns.count) / days * 7
        let logged = Double(window.loggedDays) / days
        let weighIns = min(1, weighInsPerWeek / fullWeighInsPerWeek).squareRoot()
        let length = min(1, days / Double(EstimationWindow.maximumDays)).squareRoot()
        let precision = 1 / (1 + pow(estimate.standardError / precisionScaleKcal, 2))
        let score = logged * weighIns * length * precision

        var reasons = [
            "\(window.loggedDays) of \(window.days) days logged",
            "\(window.weighIns.count) weigh-ins in \(window.days) days",
        ]
        if window.days < EstimationWindow.maximumDays {
            reasons.append("Only \(window.days) days of data; \(EstimationWindow.maximumDays) give a firmer estimate")
        }
        reasons.append("Weigh-ins scatter ±\(String(format: "%.2f", estimate.fit.scatterKg)) kg around the trend")
        if estimate.fit.ignoredWeighIns > 0 {
            let count = estimate.fit.ignoredWeighIns
            reasons.append("\(count) weigh-in\(count == 1 ? "" : "s") far from the trend ignored")
        }
        let partial = partialDays(window)
        if partial > 0 {
            let counted = "\(partial) logged day\(partial == 1 ? "" : "s")"
            reasons.append("\(counted) under half the usual intake; missed meals make the estimate too low")
        }
        return ExpenditureEstimate.Confidence(score: score, reasons: reasons)
    }

    private static func partialDays(_ window: EstimationWindow) -> Int {
        let sorted = window.intakes.map(\.kcal).sorted()
        guard !sorted.isEmpty else { return 0 }
        let median = sorted[sorted.count / 2]
        return sorted.filter { $0 < partialDayShare * median }.count
    }
}

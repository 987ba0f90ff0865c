import ServiceDefaults

/// Estimates a user's daily energy expenditure and suggests a calorie target (docs/EXPENDITURE.md).
///
/// In order of preference:
/// 1. `energy_balance` (`EnergyBalanceEstimate`): mean logged intake minus the energy of the weight trend's
///    change, over the window of `EstimationWindow` (at most the 28 days ending yesterday), when that window has
///    at least 4 weigh-ins spanning 14 days and 10 logged days and the result is plausible;
/// 2. `formula` (`MifflinStJeorFormula`): from height, birth date, sex, activity level and the latest weight
///    trend, when the log does not allow the first;
/// 3. `insufficient_data`: the reasons say what is missing.
///
/// Pure and deterministic: no clock, no I/O; the caller passes the user's today.
enum ExpenditureEstimator {
    /// The estimate from `days` (any order, may have gaps, may reach beyond the window) for a user whose
    /// calendar day is `today`.
    static func estimate(days: [ExpenditureDay], today: CalendarDate, profile: ExpenditureProfile) -> ExpenditureEstimate {
        let window = EstimationWindow(days: days, today: today)
        let logReason: String
        do {
            return energyBalance(try EnergyBalanceEstimate(window: window), window: window, profile: profile)
        } catch {
            logReason = error.reason
        }
        // Today's weigh-in counts here: unlike today's intake, it is complete once made.
        let weighIns = days.filter { $0.date <= today }.compactMap { day in day.weightKg.map { (date: day.date, kg: $0) } }
        let latest = WeightTrendSmoother.smooth(weighIns).last
        let averageIntake = window.meanIntake.map(ExpenditureEstimate.kcal)
        do {
            let formula = try MifflinStJeorFormula(profile: profile, weightKg: latest?.trendKg, today: today)
            let expenditure = ExpenditureEstimate.kcal(formula.dailyKcal)
            let spread = MifflinStJeorFormula.rangeShare * formula.dailyKcal
            let range = ExpenditureEstimate.KcalRange(
                low: ExpenditureEstimate.kcal(formula.dailyKcal - spread), high: ExpenditureEstimate.kcal(formula.dailyKcal + spread))
            var reasons = [logReason] + formula.reasons
            if let latest {
                reasons.append("Weight \(ExpenditureEstimate.kg(latest.trendKg)) kg, the trend at the weigh-in of \(latest.date)")
            }
            return ExpenditureEstimate(
                method: .formula, dailyExpenditure: expenditure, range: range,
                confidence: .init(score: MifflinStJeorFormula.confidenceScore, reasons: reasons),
                window: window.summary, averageIntake: averageIntake, weightTrend: nil,
                suggestedTarget: CalorieTargetPlanner.suggest(expenditure: expenditure, currentWeightKg: latest?.trendKg, profile: profile))
        } catch {
            return ExpenditureEstimate(
                method: .insufficientData, dailyExpenditure: nil, range: nil,
                confidence: .init(score: 0, reasons: [logReason, error.reason]),
                window: window.summary, averageIntake: averageIntake, weightTrend: nil, suggestedTarget: nil)
        }
    }

    private static func energyBalance(
        _ balance: EnergyBalanceEstimate, window: EstimationWindow, profile: ExpenditureProfile
    ) -> ExpenditureEstimate {
        let expenditure = ExpenditureEstimate.kcal(balance.expenditure)
        let fit = balance.fit
        let currentKg = fit.kg(on: window.to)
        return ExpenditureEstimate(
            method: .energyBalance, dailyExpenditure: expenditure,
            range: .init(
                low: ExpenditureEstimate.kcal(balance.expenditure - balance.rangeHalfWidth),
                high: ExpenditureEstimate.kcal(balance.expenditure + balance.rangeHalfWidth)),
            confidence: EnergyBalanceConfidence.rate(balance, window: window),
            window: window.summary, averageIntake: ExpenditureEstimate.kcal(balance.meanIntake),
            weightTrend: .init(
                startKg: ExpenditureEstimate.kg(fit.kg(on: window.from)), endKg: ExpenditureEstimate.kg(currentKg),
                changePerWeekKg: ExpenditureEstimate.kg(fit.slopeKgPerDay * 7)),
            suggestedTarget: CalorieTargetPlanner.suggest(expenditure: expenditure, currentWeightKg: currentKg, profile: profile))
    }
}

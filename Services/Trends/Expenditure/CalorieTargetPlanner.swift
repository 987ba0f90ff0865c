/// Suggests a daily calorie target for the user's goal from their estimated expenditure.
///
/// The first goal that is set decides:
/// 1. `calorieBalanceGoal`: expenditure + balance (deficit when negative, surplus when positive);
/// 2. `targetWeightKg` (with a current weight): maintain within 1 kg of it; otherwise lose 0.5 kg a week
///    (550 kcal a day below expenditure at 7,700 kcal/kg) or gain 0.25 kg a week (275 kcal above): moderate
///    paces, since faster loss costs more lean tissue and faster gain adds mostly fat;
/// 3. `dailyCalorieGoal`: kept as the user set it, labelled by how it compares to expenditure (within 100 kcal
///    is maintain);
/// 4. otherwise maintain: the expenditure itself.
///
/// The target is never below the safety floor: 1,200 kcal for women, 1,500 kcal for everyone else (common
/// guidance for eating without medical supervision; the higher floor when sex is unknown, to err on the safe side).
enum CalorieTargetPlanner {
    static let lossPerWeekKg = 0.5
    static let gainPerWeekKg = 0.25
    static let targetToleranceKg = 1.0
    static let maintainBandKcal = 100
    static let femaleFloorKcal = 1_200
    static let otherFloorKcal = 1_500

    /// The target for a user burning `expenditure` kcal a day and weighing `currentWeightKg` now.
    static func suggest(expenditure: Int, currentWeightKg: Double?, profile: ExpenditureProfile) -> ExpenditureEstimate.Target {
        let plan = plan(expenditure: expenditure, currentWeightKg: currentWeightKg, profile: profile)
        let floor = profile.sex == "female" ? femaleFloorKcal : otherFloorKcal
        guard plan.calories < floor else { return plan }
        return ExpenditureEstimate.Target(
            calories: floor, basis: plan.basis,
            explanation: "Raised to the safety floor of \(floor) kcal, the least advised without medical supervision"
                + " (the goal alone would give \(plan.calories) kcal).",
            safetyFloorApplied: true)
    }

    private static func plan(expenditure: Int, currentWeightKg: Double?, profile: ExpenditureProfile) -> ExpenditureEstimate.Target {
        func target(_ calories: Int, _ basis: ExpenditureEstimate.Target.Basis, _ explanation: String) -> ExpenditureEstimate.Target {
            ExpenditureEstimate.Target(calories: calories, basis: basis, explanation: explanation, safetyFloorApplied: false)
        }
        let burned = "\(expenditure) kcal you burn"
        if let balance = profile.calorieBalanceGoal {
            let calories = expenditure + balance
            if balance < 0 { return target(calories, .deficit, "About \(expenditure) kcal burned a day minus your \(-balance) kcal deficit goal.") }
            if balance > 0 { return target(calories, .surplus, "About \(expenditure) kcal burned a day plus your \(balance) kcal surplus goal.") }
            return target(calories, .maintain, "About the \(burned) a day, as your balance goal is zero.")
        }
        if let targetKg = profile.targetWeightKg, let currentKg = currentWeightKg {
            let gap = targetKg - currentKg
            if abs(gap) <= targetToleranceKg {
                return target(
                    expenditure, .maintain,
                    "You are within \(text(kg: targetToleranceKg)) kg of your \(text(kg: targetKg)) kg target, so eat about the \(burned).")
            }
            let pace = gap < 0 ? lossPerWeekKg : gainPerWeekKg
            let change = Int((pace * EnergyBalanceEstimate.kcalPerKg / 7).rounded())
            let toward = "about \(text(kg: pace)) kg a week toward \(text(kg: targetKg)) kg."
            return gap < 0
                ? target(expenditure - change, .towardTargetWeight, "\(change) kcal below the \(burned), to lose \(toward)")
                : target(expenditure + change, .towardTargetWeight, "\(change) kcal above the \(burned), to gain \(toward)")
        }
        if let goal = profile.dailyCalorieGoal {
            let difference = goal - expenditure
            let own = "Your own goal of \(goal) kcal"
            if difference < -maintainBandKcal { return target(goal, .deficit, "\(own), \(-difference) kcal below the \(burned).") }
            if difference > maintainBandKcal { return target(goal, .surplus, "\(own), \(difference) kcal above the \(burned).") }
            return target(goal, .maintain, "\(own), about the \(burned).")
        }
        return target(expenditure, .maintain, "About the \(burned) a day, to keep your weight.")
    }

    /// `kg` to 0.01 without trailing zeros and independent of locale: 70, 72.5, 0.25.
    private static func text(kg: Double) -> String {
        let rounded = ExpenditureEstimate.kg(kg)
        return rounded == rounded.rounded() ? String(Int(rounded)) : String(rounded)
    }
}

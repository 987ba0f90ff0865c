import Testing

@testable import TrendsService

/// `CalorieTargetPlanner`: the calorie target each goal suggests, and the safety floors.
@Suite("Suggested calorie targets for each goal, never below the safety floor")
struct CalorieTargetPlannerTests {
    private func target(_ profile: ExpenditureProfile, expenditure: Int = 2_500, weightKg: Double? = 80) -> ExpenditureEstimate.Target {
        CalorieTargetPlanner.suggest(expenditure: expenditure, currentWeightKg: weightKg, profile: profile)
    }

    @Test("a 500 kcal deficit goal: expenditure minus 500")
    func deficit() {
        let result = target(ExpenditureProfile(calorieBalanceGoal: -500))
        #expect(
            result
                == .init(
                    calories: 2_000, basis: .deficit, explanation: "About 2500 kcal burned a day minus your 500 kcal deficit goal.",
                    safetyFloorApplied: false))
    }

    @Test("a 300 kcal surplus goal: expenditure plus 300")
    func surplus() {
        let result = target(ExpenditureProfile(calorieBalanceGoal: 300))
        #expect(result.calories == 2_800 && result.basis == .surplus)
    }

    @Test("target weight 10 kg below: 550 kcal under expenditure, to lose 0.5 kg a week")
    func targetBelow() {
        let result = target(ExpenditureProfile(targetWeightKg: 70))
        #expect(result.calories == 1_950 && result.basis == .towardTargetWeight)
        #expect(result.explanation == "550 kcal below the 2500 kcal you burn, to lose about 0.5 kg a week toward 70 kg.")
    }

    @Test("target weight 5 kg above: 275 kcal over expenditure, to gain 0.25 kg a week")
    func targetAbove() {
        let result = target(ExpenditureProfile(targetWeightKg: 72.5), weightKg: 67.5)
        #expect(result.calories == 2_775 && result.basis == .towardTargetWeight)
        #expect(result.explanation.contains("gain about 0.25 kg a week toward 72.5 kg"))
    }

    @Test("within 1 kg of the target weight, either side: maintain")
    func targetWithinTolerance() {
        #expect(target(ExpenditureProfile(targetWeightKg: 70), weightKg: 70.9).calories == 2_500)
        #expect(target(ExpenditureProfile(targetWeightKg: 70), weightKg: 69.1).basis == .maintain)
        #expect(target(ExpenditureProfile(targetWeightKg: 70), weightKg: 71.1).basis == .towardTargetWeight)
    }

    @Test("a target weight without any weigh-in falls through to maintain")
    func targetWithoutWeight() {
        #expect(target(ExpenditureProfile(targetWeightKg: 70), weightKg: nil) == target(ExpenditureProfile(), weightKg: nil))
    }

    @Test("the balance goal wins over the target weight, which wins over the daily goal")
    func precedence() {
        #expect(target(ExpenditureProfile(dailyCalorieGoal: 1_800, calorieBalanceGoal: -250, targetWeightKg: 70)).calories == 2_250)
        #expect(target(ExpenditureProfile(dailyCalorieGoal: 1_800, targetWeightKg: 70)).calories == 1_950)
    }

    @Test("the user's own daily goal is kept and compared with expenditure")
    func ownDailyGoal() {
        let result = target(ExpenditureProfile(dailyCalorieGoal: 1_800))
        #expect(
            result
                == .init(
                    calories: 1_800, basis: .deficit, explanation: "Your own goal of 1800 kcal, 700 kcal below the 2500 kcal you burn.",
                    safetyFloorApplied: false))
        #expect(target(ExpenditureProfile(dailyCalorieGoal: 2_550)).basis == .maintain)
    }

    @Test("no goal: maintain at expenditure")
    func noGoal() {
        #expect(target(ExpenditureProfile()).calories == 2_500)
        #expect(target(ExpenditureProfile()).basis == .maintain)
    }

    @Test("a woman burning 1,600 with a 700 kcal deficit goal is held at 1,200 and told why")
    func femaleFloor() {
        let result = target(ExpenditureProfile(calorieBalanceGoal: -700, sex: "female"), expenditure: 1_600)
        #expect(result.calories == 1_200 && result.safetyFloorApplied && result.basis == .deficit)
        #expect(
            result.explanation
                == "Raised to the safety floor of 1200 kcal, the least advised without medical supervision (the goal alone would give 900 kcal).")
    }

    @Test("men and users of unknown sex are held at 1,500; a target just above the floor is untouched")
    func otherFloor() {
        #expect(target(ExpenditureProfile(calorieBalanceGoal: -500, sex: "male"), expenditure: 1_800).calories == 1_500)
        #expect(target(ExpenditureProfile(dailyCalorieGoal: 1_000), expenditure: 1_800).calories == 1_500)
        #expect(!target(ExpenditureProfile(calorieBalanceGoal: -500), expenditure: 2_000).safetyFloorApplied)
    }
}

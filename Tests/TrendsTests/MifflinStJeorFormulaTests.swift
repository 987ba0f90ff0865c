import ServiceDefaults
import Testing

@testable import TrendsService

/// `MifflinStJeorFormula`, the estimate from body data, and the t quantile behind the energy-balance range.
@Suite("Mifflin-St Jeor fallback")
struct MifflinStJeorFormulaTests {
    @Test("unknown sex uses the mean constant (-78) and a missing activity level means sedentary, both said")
    func assumptions() throws {
        let profile = ExpenditureProfile(heightCm: 165, birthDate: CalendarDate("1996-05-01")!)
        let formula = try MifflinStJeorFormula(profile: profile, weightKg: 60, today: ExpenditureEstimatorTests.today)
        // (600 + 1031.25 - 150 - 78) × 1.2, at 30 years old
        #expect(abs(formula.dailyKcal - 1_683.9) < 1e-9)
        #expect(formula.reasons.contains("Sex not given: the mean of the female and male formulas is used"))
        #expect(formula.reasons.contains("Activity level not set: sedentary assumed"))
    }

    @Test("age counts whole years: the day before the birthday is a year younger")
    func age() {
        let born = CalendarDate("1986-05-02")!
        #expect(MifflinStJeorFormula.age(born: born, on: CalendarDate("2026-05-01")!) == 39)
        #expect(MifflinStJeorFormula.age(born: born, on: CalendarDate("2026-05-02")!) == 40)
    }

    @Test("not used under 18")
    func minors() {
        let profile = ExpenditureProfile(heightCm: 170, birthDate: CalendarDate("2010-01-01")!, sex: "female")
        #expect(throws: MifflinStJeorFormula.Unavailable.self) {
            try MifflinStJeorFormula(profile: profile, weightKg: 60, today: ExpenditureEstimatorTests.today)
        }
    }

    @Test("the t quantile behind the range matches the table within the documented error")
    func studentT() {
        #expect(abs(EnergyBalanceEstimate.studentT975(degreesOfFreedom: 2) - 4.303) < 0.15)
        #expect(abs(EnergyBalanceEstimate.studentT975(degreesOfFreedom: 5) - 2.571) < 0.01)
        #expect(abs(EnergyBalanceEstimate.studentT975(degreesOfFreedom: 26) - 2.056) < 0.01)
    }
}

import ServiceDefaults

/// The body of `GET /api/trends/expenditure`: the user's estimated daily energy expenditure, how sure it is,
/// the data it rests on and a calorie target for the user's goal.
///
/// Numbers are rounded where they are made: kcal to whole numbers, kg to 0.01, the score to 0.01. Unknown values
/// (`dailyExpenditure`, `range`, `averageIntake`, `weightTrend`, `suggestedTarget`) are left out of the JSON.
/// The method and its limits are in docs/EXPENDITURE.md.
struct ExpenditureEstimate: Encodable, Sendable, Equatable {
    /// How the expenditure was found.
    enum Method: String, Encodable, Sendable {
        /// Mean logged intake minus the energy of the weight trend's change.
        case energyBalance = "energy_balance"
        /// Mifflin-St Jeor resting energy times an activity factor, from body data and the latest weight.
        case formula
        /// Neither the log nor the body data allow an estimate.
        case insufficientData = "insufficient_data"
    }

    /// Where the expenditure plausibly lies, in kcal a day (about 95% for the energy balance).
    struct KcalRange: Encodable, Sendable, Equatable {
        var low: Int
        var high: Int
    }

    /// How far to trust the estimate, with the reasons in short sentences.
    struct Confidence: Encodable, Sendable, Equatable {
        /// high from a score of 0.7, medium from 0.4, low below.
        enum Level: String, Encodable, Sendable {
            case low, medium, high
        }

        static let highScore = 0.7
        static let mediumScore = 0.4

        var level: Level
        /// 0...1, rounded to 0.01.
        var score: Double
        var reasons: [String]

        /// The confidence of `score` (0...1), its level from the thresholds, the score rounded to 0.01.
        init(score: Double, reasons: [String]) {
            self.level = score >= Self.highScore ? .high : score >= Self.mediumScore ? .medium : .low
            self.score = (score * 100).rounded() / 100
            self.reasons = reasons
        }
    }

    /// The days the estimate looked at: `from` through `to` inclusive.
    struct Window: Encodable, Sendable, Equatable {
        var from: CalendarDate
        var to: CalendarDate
        var days: Int
        var loggedDays: Int
        var weighIns: Int
    }

    /// The weight trend line over the window (the robust line fit, not single weigh-ins).
    struct WeightTrend: Encodable, Sendable, Equatable {
        var startKg: Double
        var endKg: Double
        var changePerWeekKg: Double
    }

    /// The calories a day suggested for the user's goal.
    struct Target: Encodable, Sendable, Equatable {
        /// What the target aims at.
        enum Basis: String, Encodable, Sendable {
            case maintain, deficit, surplus
            case towardTargetWeight = "toward_target_weight"
        }

        var calories: Int
        var basis: Basis
        /// One sentence; says so when the safety floor raised the target.
        var explanation: String
        /// True when the target was raised to the safety floor.
        var safetyFloorApplied: Bool
    }

    var method: Method
    var dailyExpenditure: Int?
    var range: KcalRange?
    var confidence: Confidence
    var window: Window
    /// Mean intake of the logged days in the window.
    var averageIntake: Int?
    var weightTrend: WeightTrend?
    var suggestedTarget: Target?

    /// `kcal` rounded to a whole number, as the answer shows it.
    static func kcal(_ kcal: Double) -> Int { Int(kcal.rounded()) }

    /// `kg` rounded to 0.01, as the answer shows it.
    static func kg(_ kg: Double) -> Double { (kg * 100).rounded() / 100 }
}

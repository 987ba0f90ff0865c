import ServiceDefaults

/// The fallback estimate from body data: Mifflin-St Jeor resting energy times an activity factor.
///
/// Resting energy (kcal/day) = 10 × weight kg + 6.25 × height cm − 5 × age + s, with s = +5 for men, −161 for
/// women and −78 (their mean) for other or unspecified sex. Activity factors: sedentary 1.2, light 1.375,
/// moderate 1.55, active 1.725, very_active 1.9; sedentary when not set. The weight is the smoothed trend of
/// the weigh-ins up to today (`WeightTrendSmoother`).
///
/// Limits: the equation predicts resting energy within 10% for about 80% of adults, and the self-chosen activity
/// factor is the bigger error, so the range is ±15% and the confidence always low. It was fit on adults, so it
/// is not used under 18 (growth needs energy the formula does not know about).
struct MifflinStJeorFormula: Sendable {
    static let activityFactors: [String: Double] = [
        "sedentary": 1.2, "light": 1.375, "moderate": 1.55, "active": 1.725, "very_active": 1.9,
    ]
    static let defaultActivityLevel = "sedentary"
    static let minimumAgeYears = 18
    /// The range is the estimate ± this share.
    static let rangeShare = 0.15
    static let confidenceScore = 0.25

    /// Why the formula cannot be used, as one sentence for the user.
    struct Unavailable: Error, Sendable {
        let reason: String
    }

    let dailyKcal: Double
    /// What the estimate assumed, in short sentences.
    let reasons: [String]

    /// The estimate for `profile` weighing `weightKg` (nil without a weigh-in) on `today`.
    init(profile: ExpenditureProfile, weightKg: Double?, today: CalendarDate) throws(Unavailable) {
        var missing: [String] = []
        if profile.heightCm == nil { missing.append("your height") }
        if profile.birthDate == nil { missing.append("your birth date") }
        if weightKg == nil { missing.append("a weigh-in") }
        guard let height = profile.heightCm, let birthDate = profile.birthDate, let weight = weightKg else {
            throw Unavailable(reason: "Add \(Self.list(missing)) for an estimate from body data")
        }
        let age = Self.age(born: birthDate, on: today)
        guard age >= Self.minimumAgeYears else {
            throw Unavailable(reason: "The body-data formula is for adults (\(Self.minimumAgeYears) and over)")
        }
        let sexTerm: Double
        var reasons = ["Estimated from height, age, sex and weight (Mifflin-St Jeor) instead of the log"]
        switch profile.sex {
        case "male": sexTerm = 5
        case "female": sexTerm = -161
        default:
            sexTerm = -78
            reasons.append("Sex not given: the mean of the female and male formulas is used")
        }
        let level = profile.activityLevel.flatMap { Self.activityFactors[$0] == nil ? nil : $0 }
        if level == nil { reasons.append("Activity level not set: sedentary assumed") }
        let factor = Self.activityFactors[level ?? Self.defaultActivityLevel]!
        let resting = 10 * weight + 6.25 * height - 5 * Double(age) + sexTerm
        self.dailyKcal = resting * factor
        self.reasons = reasons
    }

    /// Whole years from `born` to `date`.
    static func age(born: CalendarDate, on date: CalendarDate) -> Int {
        date.year - born.year - ((date.month, date.day) < (born.month, born.day) ? 1 : 0)
    }

    private static func list(_ items: [String]) -> String {
        items.count <= 1 ? items.joined() : items.dropLast().joined(separator: ", ") + " and " + items.last!
    }
}

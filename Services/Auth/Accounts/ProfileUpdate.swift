import EventContracts
import Foundation
import ServiceDefaults

/// The body of `PUT /api/users/profile`. Every field is optional: an absent field keeps its value, and an
/// explicit `null` clears an optional goal. `targetWeight` is in `weightUnit` (the new one if given).
struct ProfileUpdate: Decodable, Sendable {
    /// A field that may be absent, null, or set.
    enum Field<Value: Decodable & Sendable>: Sendable {
        case absent
        case null
        case value(Value)

        var isAbsent: Bool { if case .absent = self { true } else { false } }
    }

    var displayName: Field<String> = .absent
    var dietPreference: Field<String> = .absent
    var customMacros: Field<MacroSplit> = .absent
    var dailyCalorieGoal: Field<Int> = .absent
    var proteinGoalGrams: Field<Int> = .absent
    var carbsGoalGrams: Field<Int> = .absent
    var fatGoalGrams: Field<Int> = .absent
    var calorieBalanceGoal: Field<Int> = .absent
    var targetWeight: Field<Double> = .absent
    var weightUnit: Field<String> = .absent
    var timeZone: Field<String> = .absent
    var heightCm: Field<Double> = .absent
    var birthDate: Field<String> = .absent
    var sex: Field<String> = .absent
    var activityLevel: Field<String> = .absent
    var historyRetentionDays: Field<Int> = .absent
    var deletePhotosAfterDays: Field<Int> = .absent
    var dailyWaterGoalMillilitres: Field<Int> = .absent
    var weekStart: Field<String> = .absent
    /// When the client made the change (ISO 8601), for last-write-wins; the server's time when absent.
    var modifiedAt: String?

    private enum Keys: String, CodingKey {
        case displayName, dietPreference, customMacros, dailyCalorieGoal, proteinGoalGrams, carbsGoalGrams, fatGoalGrams
        case calorieBalanceGoal, targetWeight, weightUnit, timeZone, heightCm, birthDate, sex, activityLevel, historyRetentionDays
        case deletePhotosAfterDays, dailyWaterGoalMillilitres, weekStart
        case modifiedAt
    }

    init() {}

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Keys.self)
        func field<Value: Decodable & Sendable>(_ key: Keys) throws -> Field<Value> {
            guard container.contains(key) else { return .absent }
            if try container.decodeNil(forKey: key) { return .null }
            return .value(try container.decode(Value.self, forKey: key))
        }
        displayName = try field(.displayName)
        dietPreference = try field(.dietPreference)
        customMacros = try field(.customMacros)
        dailyCalorieGoal = try field(.dailyCalorieGoal)
        proteinGoalGrams = try field(.proteinGoalGrams)
        carbsGoalGrams = try field(.carbsGoalGrams)
        fatGoalGrams = try field(.fatGoalGrams)
        calorieBalanceGoal = try field(.calorieBalanceGoal)
        targetWeight = try field(.targetWeight)
        weightUnit = try field(.weightUnit)
        timeZone = try field(.timeZone)
        heightCm = try field(.heightCm)
        birthDate = try field(.birthDate)
        sex = try field(.sex)
        activityLevel = try field(.activityLevel)
        historyRetentionDays = try field(.historyRetentionDays)
        deletePhotosAfterDays = try field(.deletePhotosAfterDays)
        dailyWaterGoalMillilitres = try field(.dailyWaterGoalMillilitres)
        weekStart = try field(.weekStart)
        modifiedAt = try container.decodeIfPresent(String.self, forKey: .modifiedAt)
    }

    /// The next version of `current` with this update applied at `now`; nil when it changes nothing. Throws 422
    /// naming every invalid field.
    func revision(of current: Profile, at now: Date) throws -> Profile? {
        var updated: Profile
        switch applied(to: current, today: now) {
        case .success(let profile): updated = profile
        case .failure(let error): throw APIError.invalid(error.fields)
        }
        guard updated != current else { return nil }
        updated.version = current.version + 1
        updated.updatedAt = now
        if updated.goals != current.goals { updated.goalsEffectiveFrom = updated.localDate(of: now) }
        return updated
    }

    /// `profile` with this update applied, or the problems by field name (all of them, not just the first).
    func applied(to profile: Profile, today: Date) -> Result<Profile, ProfileValidationError> {
        var updated = profile
        var problems: [String: String] = [:]

        func set<Value>(_ field: Field<Value>, _ name: String, required: Bool = false, _ apply: (Value?) -> Void, check: (Value) -> String?) {
            switch field {
            case .absent: return
            case .null:
                if required { problems[name] = "cannot be null" } else { apply(nil) }
            case .value(let value):
                if let problem = check(value) { problems[name] = problem } else { apply(value) }
            }
        }
        func range(_ bounds: ClosedRange<Int>) -> (Int) -> String? {
            { bounds.contains($0) ? nil : "must be between \(bounds.lowerBound) and \(bounds.upperBound)" }
        }

        set(displayName, "displayName", required: true, { updated.displayName = ($0 ?? "").trimmingCharacters(in: .whitespacesAndNewlines) }) {
            DisplayName.problem(with: $0)
        }
        set(dietPreference, "dietPreference", required: true, { updated.dietPreference = $0 ?? "balanced" }) {
            Profile.diets.contains($0) ? nil : "must be one of \(Profile.diets.sorted().joined(separator: ", "))"
        }
        set(customMacros, "customMacros", { updated.customMacros = $0 }) { split in
            let parts = [split.proteinPercent, split.carbsPercent, split.fatPercent]
            guard parts.allSatisfy({ (0...100).contains($0) }) else { return "each percentage must be between 0 and 100" }
            return abs(parts.reduce(0, +) - 100) < 0.01 ? nil : "proteinPercent, carbsPercent and fatPercent must sum to 100"
        }
        set(dailyCalorieGoal, "dailyCalorieGoal", { updated.dailyCalorieGoal = $0 }, check: range(500...10_000))
        set(proteinGoalGrams, "proteinGoalGrams", { updated.proteinGoalGrams = $0 }, check: range(0...1_000))
        set(carbsGoalGrams, "carbsGoalGrams", { updated.carbsGoalGrams = $0 }, check: range(0...2_000))
        set(fatGoalGrams, "fatGoalGrams", { updated.fatGoalGrams = $0 }, check: range(0...1_000))
        set(calorieBalanceGoal, "calorieBalanceGoal", { updated.calorieBalanceGoal = $0 }, check: range(-2_000...2_000))
        set(weightUnit, "weightUnit", required: true, { updated.weightUnit = $0 ?? "kg" }) { ["kg", "lbs"].contains($0) ? nil : "must be kg or lbs" }
        set(
            targetWeight, "targetWeight",
            { value in
                updated.targetWeightKg = value.map { updated.weightUnit == "lbs" ? $0 * Profile.kilogramsPerPound : $0 }
            }
        ) { value in
            // Checked in the unit it is given in (metrics' weigh-ins the same): 20-500 kg, 44.1-1102.3 lbs.
            let range = weightUnitAfterUpdate(profile) == "lbs" ? 44.1...1102.3 : 20.0...500.0
            return range.contains(value) ? nil : "must be between 20 and 500 kg (44.1 and 1102.3 lbs)"
        }
        set(timeZone, "timeZone", required: true, { updated.timeZone = $0 ?? "UTC" }) { TimeZoneName.problem(with: $0) }
        set(heightCm, "heightCm", { updated.heightCm = $0 }) { (50...272).contains($0) ? nil : "must be between 50 and 272" }
        set(birthDate, "birthDate", { updated.birthDate = $0 }) { BirthDate.problem(with: $0, today: today) }
        set(sex, "sex", { updated.sex = $0 }) {
            Profile.sexes.contains($0) ? nil : "must be one of \(Profile.sexes.sorted().joined(separator: ", "))"
        }
        set(activityLevel, "activityLevel", { updated.activityLevel = $0 }) {
            Profile.activityLevels.contains($0) ? nil : "must be one of \(Profile.activityLevels.sorted().joined(separator: ", "))"
        }
        set(historyRetentionDays, "historyRetentionDays", { updated.historyRetentionDays = $0 }, check: range(Profile.historyRetentionDays))
        set(deletePhotosAfterDays, "deletePhotosAfterDays", { updated.deletePhotosAfterDays = $0 }, check: range(Profile.deletePhotosAfterDays))
        set(
            dailyWaterGoalMillilitres, "dailyWaterGoalMillilitres", { updated.dailyWaterGoalMillilitres = $0 },
            check: range(Profile.dailyWaterGoalMillilitres))
        set(weekStart, "weekStart", required: true, { updated.weekStart = $0.flatMap(Weekday.init(rawValue:)) ?? .monday }) {
            Weekday(rawValue: $0) == nil ? "must be one of \(Weekday.names.joined(separator: ", "))" : nil
        }

        if problems.isEmpty {
            if updated.dietPreference == "custom", updated.customMacros == nil {
                problems["customMacros"] = "is required for the custom diet"
            }
            if updated.dietPreference != "custom" { updated.customMacros = nil }
        }
        guard problems.isEmpty else { return .failure(ProfileValidationError(fields: problems)) }
        return .success(updated)
    }

    private func weightUnitAfterUpdate(_ profile: Profile) -> String {
        if case .value(let unit) = weightUnit { return unit }
        return profile.weightUnit
    }
}

/// Invalid profile values, by field.
struct ProfileValidationError: Error {
    var fields: [String: String]
}

/// Display name rules: 1 to 80 characters after trimming, no control characters.
enum DisplayName {
    /// The most characters a display name may have.
    static let maximumLength = 80

    static func problem(with name: String) -> String? {
        let trimmed = name.trimmingCharacters(in: .whitespacesAndNewlines)
        if trimmed.isEmpty { return "must not be empty" }
        if trimmed.count > maximumLength { return "must be at most \(maximumLength) characters" }
        if trimmed.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) { return "must not contain control characters" }
        return nil
    }
}

/// Birth dates: `YYYY-MM-DD`, a real date, not in the future, at most 130 years ago.
enum BirthDate {
    static func problem(with text: String, today: Date) -> String? {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd"
        formatter.isLenient = false
        guard text.count == 10, let date = formatter.date(from: text), formatter.string(from: date) == text else {
            return "must be a date as YYYY-MM-DD"
        }
        if date > today { return "must not be in the future" }
        if date < today.addingTimeInterval(-130 * 365.25 * 86_400) { return "must be within the last 130 years" }
        return nil
    }
}

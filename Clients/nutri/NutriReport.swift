import Foundation
import NutritionAIClient

/// What `nutri` does and prints, through the typed client only.
enum NutriReport {
    /// Signs in (registering in `timeZone` when the account does not exist), logs `meal` as eaten when given, and
    /// answers today's totals and the 7-day trend as text.
    static func make(
        session: NutritionAISession, email: String, password: String, meal: String?, timeZone: String = TimeZone.current.identifier
    ) async throws -> String {
        var lines: [String] = []
        do {
            try await session.signIn(email: email, password: password)
            lines.append("signed in as \(email)")
        } catch let error as NutritionAIError where error.status == 401 {
            try await session.register(email: email, password: password, timeZone: timeZone)
            lines.append("registered \(email)")
        }
        if let meal {
            let analyzed = try await session.api.analyzeMeal(body: .json(.init(text: meal))).created.body.json
            _ = try await session.api.consumeMeal(path: .init(id: analyzed.id)).ok
            lines.append("logged \(analyzed.title): \(kcal(analyzed.totals.calories))")
        }
        let today = try await session.api.getUserStats().ok.body.json.today
        lines.append(
            "today: \(today.mealsConsumed) meals, \(kcal(today.totals.calories)), protein \(grams(today.totals.proteinGrams)), "
                + "carbs \(grams(today.totals.carbsGrams)), fat \(grams(today.totals.fatGrams))")
        let trend = try await session.api.getTrends(query: .init(period: ._7d)).ok.body.json
        lines.append("last 7 days (\(trend.from) to \(trend.to)):")
        for day in trend.days {
            lines.append("  \(day.date)  \(kcal(day.calories))  \(day.goalStatus.rawValue)")
        }
        return lines.joined(separator: "\n")
    }

    static func kcal(_ value: Double) -> String { "\(Int(value.rounded())) kcal" }
    static func grams(_ value: Double) -> String { "\(Int(value.rounded())) g" }
}

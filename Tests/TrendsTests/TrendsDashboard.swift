import ContractTesting
import EventContracts
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import ServiceDefaults
import TestSupport
import Testing

@testable import TrendsService
@testable import TrendsTesting

/// One user's trends routes on an in-memory store with `day` as today: the user's zone is the day's, and what they log
/// is placed on days counted back from that today. Every answer is checked against the OpenAPI document.
struct TrendsDashboard {
    let day: TestToday
    let userId = UUID()
    let store = InMemoryTrendsStore()

    /// The routes' today (the services' `CalendarDate`, which the tests' expectations do not use).
    var today: CalendarDate { CalendarDate(day.now, in: day.zone) }

    /// A dashboard whose user lives in the day's zone, with no goals and weeks from `weekStart`.
    init(_ day: TestToday, weekStart: Weekday = .monday) {
        self.day = day
        var profile = TrendsProfile(timeZone: day.zone, weightUnit: "kg")
        profile.weekStart = weekStart
        store.setProfile(profile, of: userId)
    }

    func withRoutes(_ body: @Sendable (any TestClientProtocol) async throws -> Void) async throws {
        let router = ServiceRuntime.makeRouter(service: "trends", checks: [])
        let now = day.now
        TrendsRoutes(store: store, reportCacheUsers: 100, photos: nil, now: { now }).addRoutes(to: router)
        try await Application(router: router).test(.router) { client in
            let problems = try await ContractCheckingClient.problems(of: client, body)
            #expect(problems.isEmpty, "answers the OpenAPI document does not describe: \(problems)")
        }
    }

    var caller: HTTPFields {
        [CallerIdentity.userIdHeader: userId.uuidString, CallerIdentity.sessionIdHeader: UUID().uuidString]
    }

    func get(_ uri: String, _ client: any TestClientProtocol) async throws -> (status: HTTPResponse.Status, json: [String: Any]) {
        let response = try await client.execute(uri: uri, method: .get, headers: caller)
        let json = (try? JSONSerialization.jsonObject(with: Data(buffer: response.body))) as? [String: Any] ?? [:]
        return (response.status, json)
    }

    /// A consumed day of `calories` in `meals` meals, `daysAgo` before today.
    func logDay(daysAgo: Int, calories: Double, meals: Int = 2, water: Int = 0) {
        store.record(
            DaySummary(
                date: today.adding(days: -daysAgo), consumedCount: meals, scannedCount: 0, calories: calories, proteinGrams: calories * 0.05,
                carbsGrams: calories * 0.1, fatGrams: calories * 0.04, fiberGrams: 10, dietScore: 70, healthScore: 65, waterMillilitres: water),
            of: userId)
    }

    /// A meal eaten at 08:00 in the user's zone `daysAgo` before today with `dietScore`.
    @discardableResult
    func logMeal(_ title: String, daysAgo: Int = 0, dietScore: Int, consumed: Bool = true) -> MealSnapshot {
        let totals = NutrientTotals(calories: 500, proteinGrams: 30, carbsGrams: 50, fatGrams: 20, fiberGrams: 8)
        let meal = MealSnapshot(
            mealId: UUID(), userId: userId, title: title, origin: "text", mealType: "lunch", captureKind: "full_meal",
            eatenAt: day.time(daysAgo: daysAgo, hour: 8), localDate: day.date(daysAgo: daysAgo), timeZone: day.zoneName,
            isConsumed: consumed, edited: false, notes: nil, hasPhoto: false,
            items: [
                MealSnapshotItem(
                    name: title, amount: 1, unit: "plate", grams: 300, nutrients: totals, healthScore: 60, healthRating: "good", source: "estimate")
            ],
            totals: totals, healthScore: 60, healthRating: "good", dietPreference: "balanced", dietScore: dietScore,
            dietBand: dietScore >= 70 ? "green" : "red", dietExplanation: "Scored.", version: 1)
        store.record(meal)
        return meal
    }

    /// A daily calorie goal in force for the last 400 days.
    func setGoal(_ calories: Int) {
        var profile = TrendsProfile(timeZone: day.zone, weightUnit: "kg", dailyCalorieGoal: calories)
        profile.goals = GoalHistory([GoalHistory.Period(from: today.adding(days: -400), dailyCalorieGoal: calories)])
        store.setProfile(profile, of: userId)
    }

    /// The profile the expenditure estimate reads, with a goal for the last 100 days.
    func setBody() {
        var profile = TrendsProfile(
            timeZone: day.zone, weightUnit: "kg", dailyCalorieGoal: 2_000, heightCm: 180, birthDate: CalendarDate("1990-01-01"), sex: "male",
            activityLevel: "moderate")
        profile.goals = GoalHistory([GoalHistory.Period(from: today.adding(days: -100), dailyCalorieGoal: 2_000)])
        store.setProfile(profile, of: userId)
    }

    /// A weigh-in of `kilograms` `daysAgo` before today.
    func weigh(_ kilograms: Double, daysAgo: Int) {
        store.record(BodyMetricsDay(date: today.adding(days: -daysAgo), weightKg: kilograms, ketones: nil), of: userId)
    }
}

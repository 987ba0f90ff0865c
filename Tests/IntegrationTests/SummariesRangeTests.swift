import Foundation
import HTTPTypes
import HummingbirdTesting
import ServiceDefaults
import Testing

@testable import TrendsService

/// The user's own day from sign-up, and summaries of any date range: a Los Angeles user who sends their zone at
/// registration and never edits the profile's zone gets their own days, through the real services and gateway.
@Suite("Summaries of a date range in the user's zone", .serialized, .enabled(if: TestEnvironment.isAvailable))
struct SummariesRangeTests {
    /// 2026-03-10 06:45 UTC: 23:45 on 2026-03-09 in Los Angeles (PDT, UTC-7, since 2026-03-08).
    static let start = Date(timeIntervalSince1970: 1_773_125_100)

    /// Registers with the device's zone, as the apps do; nothing else sets it.
    static func registerInLosAngeles(_ stack: TrackingStack) async throws -> String {
        let email = "range-\(UUID().uuidString.prefix(8).lowercased())@example.com"
        let response = try await stack.gateway.call(
            .post, "/api/auth/register",
            json: #"{"email":"\#(email)","password":"correct horse battery","timeZone":"America/Los_Angeles"}"#)
        #expect(response.status == .created, "registration answered \(response.status): \(String(buffer: response.body))")
        let session = try response.decoded(SessionAnswer.self)
        #expect(session.profile.timeZone == "America/Los_Angeles")
        return session.accessToken
    }

    @Test("the zone sent at sign-up makes the days the user's: meals near midnight, daily statuses, averages and the achievement rate")
    func rangeInTheZoneFromSignUp() async throws {
        try await TrackingStack.run(withMeals: true, start: Self.start) { stack in
            let token = try await Self.registerInLosAngeles(stack)
            // Today is 2026-03-09 in Los Angeles (2026-03-10 in UTC): the registration's event alone tells trends so.
            let today = try await stack.eventually("/api/summaries?from=2026-03-09&to=2026-03-10", token: token, as: SummariesReport.self) {
                $0.to.description == "2026-03-09"
            }
            #expect(today.from.description == "2026-03-09" && today.to.description == "2026-03-09" && today.days.count == 1)

            // The goal, not the zone: the profile's zone is still the one sent at sign-up.
            try await stack.setProfile(#"{"dailyCalorieGoal":2000}"#, token: token)
            // 23:30 on 03-09 in Los Angeles (03-10 in UTC), noon on 03-07 (PST, UTC-8), 23:30 on 03-06 (03-07 in UTC).
            _ = try await stack.logMeal(calories: 1900, at: "2026-03-10T06:30:00Z", expectDay: "2026-03-09", token: token)
            _ = try await stack.logMeal(calories: 2500, at: "2026-03-07T20:00:00Z", expectDay: "2026-03-07", token: token)
            _ = try await stack.logMeal(calories: 1000, at: "2026-03-07T07:30:00Z", expectDay: "2026-03-06", token: token)

            let range = try await stack.eventually("/api/summaries?from=2026-03-05&to=2026-03-12", token: token, as: SummariesReport.self) {
                $0.goal.daysLogged == 3 && $0.goal.dailyCalorieGoal == 2000
            }
            #expect(range.from.description == "2026-03-05")
            #expect(range.to.description == "2026-03-09", "days after the user's today are not listed")
            #expect(range.days.map(\.date.description) == ["2026-03-05", "2026-03-06", "2026-03-07", "2026-03-08", "2026-03-09"])
            #expect(range.days.map(\.calories) == [0, 1000, 2500, 0, 1900])
            #expect(range.days.map(\.goalStatus) == [.notLogged, .under, .over, .notLogged, .met])
            #expect(range.days.map(\.caloriesRemaining) == [2000, 1000, -500, 2000, 100])
            #expect(range.goal.daysMet == 1 && range.goal.achievementRate == 0.333)
            #expect(range.averages?.calories == 1800, "the mean of the three logged days")
            #expect(range.days.map { $0.healthRating != nil } == [false, true, true, false, true], "a rating on each logged day")
            // Every plate is 25% protein, 45% carbs and 30% fat by energy (its grams rounded by the meals service).
            let split = try #require(range.macroSplit)
            #expect(abs(split.proteinPercent - 25) <= 0.2 && abs(split.carbsPercent - 45) <= 0.2 && abs(split.fatPercent - 30) <= 0.2)
            #expect(abs((range.averages?.proteinGrams ?? 0) - 112.5) <= 0.2, "5,400 kcal at 25% protein over three days")

            // The same days as the other dashboards count them.
            let progress = try await stack.gateway.call(.get, "/api/progress?days=5", token: token).decoded(DaysReport.self)
            #expect(progress.days == range.days && progress.goal == range.goal && progress.averages == range.averages)
        }
    }

    @Test("bad ranges are 422 naming the parameter, in the one error shape; 366 days are one range")
    func validation() async throws {
        try await TrackingStack.run(withMeals: false, start: Self.start) { stack in
            let token = try await Self.registerInLosAngeles(stack)
            // Once trends knows the zone from the registration's event, today is 2026-03-09.
            _ = try await stack.eventually("/api/summaries?from=2026-03-09&to=2026-03-10", token: token, as: SummariesReport.self) {
                $0.to.description == "2026-03-09"
            }
            let refusals: [(String, Set<String>)] = [
                ("", ["from", "to"]),
                ("?from=2026-03-01", ["to"]),
                ("?from=2026-02-30&to=2026-03-01", ["from"]),
                ("?from=2026-03-01&to=03/09/2026", ["to"]),
                ("?from=2026-03-09&to=2026-03-01", ["to"]),
                ("?from=2025-03-08&to=2026-03-09", ["to"]),
                // After the latest date any zone has (UTC+14's 2026-03-10): no entry can be dated so late.
                ("?from=2026-03-11&to=2026-03-11", ["from"]),
            ]
            for (query, fields) in refusals {
                let answer = try await stack.gateway.call(.get, "/api/summaries\(query)", token: token)
                #expect(answer.status == .unprocessableContent, "\(query) answered \(answer.status)")
                let error = try answer.decoded(ErrorBody.self).error
                #expect(error.code == "validation_failed" && Set(error.details.keys) == fields, "\(query): \(error.details)")
            }
            let year = try await stack.gateway.call(.get, "/api/summaries?from=2025-03-09&to=2026-03-09", token: token)
            #expect(year.status == .ok)
            let report = try year.decoded(SummariesReport.self)
            #expect(report.days.count == 366 && report.days.allSatisfy { $0.goalStatus == .notLogged })
            #expect(report.averages == nil && report.macroSplit == nil && report.goal.achievementRate == nil)
        }
    }
}

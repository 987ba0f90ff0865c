import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import PostgresNIO
import PostgresSupport
import TestSupport
import Testing

@testable import MealsService

/// A day's history (`GET /api/history/{date}`, served by trends from meal events) draws meals with photos from signed
/// thumbnail URLs that the meals service answers without a token.
@Suite("History thumbnails", .serialized)
struct HistoryThumbnailTests {
    static let start = ISO8601DateFormatter().date(from: "2026-03-10T18:00:00Z")!

    /// A day's history as a client reads it.
    struct Day: Decodable, Sendable {
        struct Meal: Decodable, Sendable {
            var mealId: UUID
            var hasPhoto: Bool
            var thumbnailUrl: String?
            var thumbnailUrlExpiresAt: Date?
        }
        var meals: [Meal]
    }

    @Test("a consumed meal's photo: history carries a signed thumbnail URL that loads the JPEG thumbnail; none without a photo")
    func historyThumbnail() async throws {
        try await FullStack.run(start: Self.start) { stack in
            let user = try await stack.signUp("Thumbs")
            let withPhoto = try await stack.logMeal("Porridge", calories: 350, eatenAt: "2026-03-10T08:00:00Z", token: user.token)
            let plain = try await stack.logMeal("Apple", calories: 80, eatenAt: "2026-03-10T10:00:00Z", token: user.token)
            let unreadable = try await stack.logMeal("Soup", calories: 200, eatenAt: "2026-03-10T12:00:00Z", token: user.token)
            try await Self.attach(
                try TestImages.jpeg(width: 1200, height: 800), type: "image/jpeg", to: withPhoto.id, stack: stack, token: user.token)
            // Bytes that start like a PNG but no image library can read: stored without a thumbnail.
            try await Self.attach(PhotoUpload.png, type: "image/png", to: unreadable.id, stack: stack, token: user.token)

            let day = try await stack.gateway.eventually("/api/history/2026-03-10", token: user.token, as: Day.self) { day in
                day.meals.filter { $0.thumbnailUrl != nil }.count == 2
            }
            let photoMeal = try #require(day.meals.first { $0.mealId == withPhoto.id })
            let url = try #require(photoMeal.thumbnailUrl, "the meal with a photo has a thumbnail URL in history")
            #expect(photoMeal.hasPhoto && url.hasPrefix("/media/photos/") && url.contains("/thumbnail?") && url.contains("sig="))
            let lifetime = try #require(photoMeal.thumbnailUrlExpiresAt).timeIntervalSince(stack.clock.now())
            #expect(lifetime > 14 * 60 && lifetime <= 16 * 60, "history's URLs live as long as meals' (15 minutes)")
            #expect(day.meals.first { $0.mealId == plain.id }?.thumbnailUrl == nil, "a meal without a photo has none")

            let thumbnail = try await stack.gateway.execute(uri: url, method: .get, headers: [:], body: nil)
            #expect(thumbnail.status == .ok, "\(String(buffer: thumbnail.body))")
            #expect(thumbnail.headers[.contentType] == "image/jpeg")
            #expect(JPEGSize(of: Array(buffer: thumbnail.body)) == JPEGSize(width: 320, height: 213), "the photo's 320 px thumbnail")

            let noThumbnail = try #require(day.meals.first { $0.mealId == unreadable.id }?.thumbnailUrl)
            let missing = try await stack.gateway.execute(uri: noThumbnail, method: .get, headers: [:], body: nil)
            #expect(missing.status == .notFound, "a photo without a thumbnail answers 404, as documented")
        }
    }

    @Test("meals and history agree on hasPhoto: a meal with a photo, one whose photo was removed, one whose photo expired, one without")
    func hasPhotoAgrees() async throws {
        try await FullStack.run(start: Self.start) { stack in
            let user = try await stack.signUp("Agree")
            let without = try await stack.logMeal("Apple", calories: 80, eatenAt: "2026-03-10T08:00:00Z", token: user.token)
            let kept = try await stack.logMeal("Porridge", calories: 350, eatenAt: "2026-03-10T09:00:00Z", token: user.token)
            let removed = try await stack.logMeal("Soup", calories: 200, eatenAt: "2026-03-10T12:00:00Z", token: user.token)
            let expired = try await stack.logMeal("Stew", calories: 500, eatenAt: "2026-03-10T17:00:00Z", token: user.token)
            let jpeg = try TestImages.jpeg(width: 400, height: 300)
            for meal in [kept, removed, expired] { try await Self.attach(jpeg, type: "image/jpeg", to: meal.id, stack: stack, token: user.token) }
            try await stack.expect(.ok, .delete, "/api/meals/\(removed.id.uuidString.lowercased())/photo", token: user.token)

            // The photo retention (deletePhotosAfterDays) removes a photo stored 20 days ago, as the periodic job does.
            let meals = try #require(stack.databases["meals"])
            try await meals.query(
                "UPDATE meal_photos SET stored_at = stored_at - interval '20 days' WHERE meal_id = \(expired.id)", logger: TestEnvironment.logger)
            try await stack.expect(.ok, .put, "/api/users/profile", json: #"{"deletePhotosAfterDays":10}"#, token: user.token)
            let retention = MealPhotoRetention(
                client: meals, meals: MealRepository(), profiles: ProfileRepository(),
                store: PostgresMealStore(
                    client: meals, meals: MealRepository(), photos: TestServices.photoVault(keys: try TestServices.photoKeys()),
                    now: { stack.clock.now() }))
            var purged = 0
            let learned = try await TestEnvironment.eventually(timeout: .seconds(30)) {
                purged += try await retention.purge(now: stack.clock.now(), logger: TestEnvironment.logger)
                return purged > 0
            }
            #expect(learned && purged == 1, "the retention removed \(purged) photos")

            let expected = [without.id: false, kept.id: true, removed.id: false, expired.id: false]
            var saidByMeals: [UUID: Bool] = [:]
            for id in expected.keys {
                let meal = try await stack.expect(.ok, .get, "/api/meals/\(id.uuidString.lowercased())", token: user.token)
                let hasPhoto = meal.object["hasPhoto"] as? Bool
                #expect(hasPhoto == (meal.object["photoUrl"] != nil), "the meal's hasPhoto and its photoUrl disagree: \(meal.object)")
                saidByMeals[id] = hasPhoto
            }
            #expect(saidByMeals == expected, "GET /api/meals/{id} says \(saidByMeals)")
            let day = try await stack.gateway.eventually("/api/history/2026-03-10", token: user.token, as: Day.self) { day in
                Dictionary(uniqueKeysWithValues: day.meals.map { ($0.mealId, $0.hasPhoto) }) == expected
            }
            let saidByHistory = Dictionary(uniqueKeysWithValues: day.meals.map { ($0.mealId, $0.hasPhoto) })
            #expect(saidByHistory == saidByMeals, "history says \(saidByHistory), meals \(saidByMeals)")
            #expect(day.meals.allSatisfy { ($0.thumbnailUrl != nil) == $0.hasPhoto }, "a thumbnail URL only for a meal with a photo")
        }
    }

    /// `PUT /api/meals/:id/photo` through the gateway, which must answer 200.
    static func attach(_ image: [UInt8], type: String, to mealId: UUID, stack: FullStack, token: String) async throws {
        let response = try await stack.gateway.execute(
            uri: "/api/meals/\(mealId.uuidString.lowercased())/photo", method: .put,
            headers: [.authorization: "Bearer \(token)", .contentType: type], body: ByteBuffer(bytes: image))
        #expect(response.status == .ok, "\(String(buffer: response.body))")
    }
}

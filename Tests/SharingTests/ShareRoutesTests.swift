import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import ServiceDefaults
import Testing

@testable import SharingService

/// The share API at the router, on an in-memory store: making, listing, viewing and revoking links, with every
/// answer checked against the OpenAPI document.
@Suite("Share routes on an in-memory store")
struct ShareRoutesTests {
    typealias Harness = SharingRouterHarness

    @Test("sharing one's meal is 201 with the link's address in Location; the link opens publicly as JSON")
    func shareAndView() async throws {
        let harness = Harness()
        let meal = harness.meal(title: "Salmon bowl")
        try await harness.withRoutes { client in
            let created = try await client.execute(
                uri: "/api/share/meal/\(meal.mealId)", method: .post, headers: harness.caller(),
                body: ByteBuffer(string: #"{"expiresInDays":3}"#))
            #expect(created.status == .created)
            let link = try Harness.decode(Harness.Link.self, created)
            #expect(created.headers[.location] == "/api/share/\(link.token)")
            #expect(link.url == "https://share.example/shared/\(link.token)")
            #expect(link.status == "active" && link.mealTitle == "Salmon bowl" && !link.includesPhoto && !link.showsDisplayName)
            #expect(link.expiresAt == Harness.start.addingTimeInterval(3 * 86_400))

            let view = try await client.execute(uri: "/api/share/\(link.token)", method: .get, headers: [:])
            #expect(view.status == .ok)
            #expect(view.headers[.contentType] == "application/json; charset=utf-8")
            let body = try JSONSerialization.jsonObject(with: Data(buffer: view.body)) as? [String: Any]
            #expect((body?["meal"] as? [String: Any])?["name"] as? String == "Salmon bowl")
            #expect(body?["sharedBy"] == nil && body?["photoUrl"] == nil)
            #expect(!String(buffer: view.body).contains(harness.owner.uuidString.lowercased()), "the owner's id is never shown")
        }
    }

    @Test("a body-less share takes the defaults: 7 days, no photo, no name")
    func defaults() async throws {
        let harness = Harness()
        let meal = harness.meal()
        try await harness.withRoutes { client in
            let response = try await client.execute(uri: "/api/share/meal/\(meal.mealId)", method: .post, headers: harness.caller(json: false))
            #expect(response.status == .created)
            #expect(try Harness.decode(Harness.Link.self, response).expiresAt == Harness.start.addingTimeInterval(7 * 86_400))
        }
    }

    @Test("a share is refused without a caller (401), for a lifetime outside 1 to 30 days (422) and for unreadable JSON (400)")
    func refusedRequests() async throws {
        let harness = Harness()
        let meal = harness.meal()
        try await harness.withRoutes { client in
            let anonymous = try await client.execute(
                uri: "/api/share/meal/\(meal.mealId)", method: .post, headers: [.contentType: "application/json"], body: ByteBuffer(string: "{}"))
            #expect(anonymous.status == .unauthorized)
            for days in [0, ShareRequest.maximumDays + 1] {
                let response = try await client.execute(
                    uri: "/api/share/meal/\(meal.mealId)", method: .post, headers: harness.caller(),
                    body: ByteBuffer(string: #"{"expiresInDays":\#(days)}"#))
                #expect(response.status == .unprocessableContent)
                #expect(Harness.errorCode(response) == "validation_failed")
            }
            let garbled = try await client.execute(
                uri: "/api/share/meal/\(meal.mealId)", method: .post, headers: harness.caller(), body: ByteBuffer(string: #"{"expiresInDays":"#))
            #expect(garbled.status == .badRequest)
        }
        #expect(harness.store.link("any") == nil)
    }

    @Test("another user's meal and a deleted meal are 404 meal_not_found; a path that is not a UUID is 422 naming id")
    func unknownMeals() async throws {
        let harness = Harness()
        let othersMeal = harness.meal(of: UUID())
        let deleted = harness.meal()
        harness.store.deleted(mealId: deleted.mealId)
        try await harness.withRoutes { client in
            for path in ["/api/share/meal/\(othersMeal.mealId)", "/api/share/meal/\(deleted.mealId)"] {
                let response = try await client.execute(uri: path, method: .post, headers: harness.caller(), body: ByteBuffer(string: "{}"))
                #expect(response.status == .notFound, "\(path)")
                #expect(Harness.errorCode(response) == "meal_not_found", "\(path)")
            }
            let notAnId = try await client.execute(
                uri: "/api/share/meal/not-a-uuid", method: .post, headers: harness.caller(), body: ByteBuffer(string: "{}"))
            #expect(notAnId.status == .unprocessableContent && Harness.errorCode(notAnId) == "validation_failed")
        }
        #expect(harness.meals.existenceCalls == 0, "meals the service knows need no question to the meals service")
    }

    @Test("never: a meal the meals service does not have for the caller is 404 meal_not_found after the wait, without Retry-After")
    func neverLoggedMeal() async throws {
        let harness = Harness()
        let strangersMeal = UUID()
        harness.meals.add(strangersMeal, of: UUID())  // known to meals, its event not here yet, and not the caller's
        try await harness.withRoutes { client in
            for mealId in [UUID(), strangersMeal] {
                let response = try await client.execute(
                    uri: "/api/share/meal/\(mealId)", method: .post, headers: harness.caller(), body: ByteBuffer(string: "{}"))
                #expect(response.status == .notFound)
                #expect(Harness.errorCode(response) == "meal_not_found")
                #expect(response.headers[.retryAfter] == nil, "nothing to retry")
                #expect(harness.arrivals.waitingCount(for: mealId) == 0, "the request gave its waiting slot back")
            }
        }
        #expect(harness.meals.existenceCalls == 2, "the meals service is asked once per request, after the wait")
        #expect(harness.store.link("any") == nil)
    }

    @Test("not yet: a meal the meals service has but whose event has not arrived is 409 meal_not_ready with Retry-After")
    func notYetArrivedMeal() async throws {
        let harness = Harness()
        let late = harness.meal()
        harness.store.forget(mealId: late.mealId)  // logged in meals; its event still on its way
        try await harness.withRoutes { client in
            let response = try await client.execute(
                uri: "/api/share/meal/\(late.mealId)", method: .post, headers: harness.caller(), body: ByteBuffer(string: "{}"))
            #expect(response.status == .conflict)
            #expect(Harness.errorCode(response) == "meal_not_ready")
            #expect(response.headers[.retryAfter] == "1")
        }
        #expect(harness.meals.existenceCalls == 1)
    }

    @Test("a meal whose event arrives while the meals service is asked is shared (201), not refused")
    func eventArrivesDuringTheQuestion() async throws {
        let harness = Harness()
        let late = harness.meal()
        harness.store.forget(mealId: late.mealId)
        harness.meals.whenAsked { [store = harness.store] _ in store.received(late) }
        try await harness.withRoutes { client in
            let response = try await client.execute(
                uri: "/api/share/meal/\(late.mealId)", method: .post, headers: harness.caller(), body: ByteBuffer(string: "{}"))
            #expect(response.status == .created, "\(String(buffer: response.body))")
        }
    }

    @Test("when the meals service cannot say whether the meal exists: 503 service_unavailable with Retry-After, no link")
    func mealsUnreachableAfterTheWait() async throws {
        let harness = Harness()
        harness.meals.setReachable(false)
        try await harness.withRoutes { client in
            let response = try await client.execute(
                uri: "/api/share/meal/\(UUID())", method: .post, headers: harness.caller(), body: ByteBuffer(string: "{}"))
            #expect(response.status == .serviceUnavailable)
            #expect(Harness.errorCode(response) == "service_unavailable")
            #expect(response.headers[.retryAfter] == "5")
            let list = try await client.execute(uri: "/api/share", method: .get, headers: harness.caller(json: false))
            #expect(try Harness.decode(Harness.LinkPage.self, list).links.isEmpty)
        }
    }

    @Test("a meal whose first event has not arrived is waited for and shared (201) the moment it arrives")
    func mealWait() async throws {
        // A wait far longer than the test: the answer can only come from the event's arrival, not from the deadline.
        let harness = Harness(mealWaitLimit: .seconds(60))
        let late = harness.meal()  // stored, then hidden until "its event arrives" mid-wait
        harness.store.forget(mealId: late.mealId)
        try await harness.withRoutes { client in
            async let shared = client.execute(
                uri: "/api/share/meal/\(late.mealId)", method: .post, headers: harness.caller(), body: ByteBuffer(string: "{}"))
            try await harness.untilShareWaits(for: late.mealId)
            harness.store.received(late)
            harness.arrivals.arrived([late.mealId])
            #expect(try await shared.status == .created)
        }
        #expect(harness.meals.existenceCalls == 0, "a meal that arrived within the wait needs no question")
    }

    @Test("a share with the photo copies it once from the meals service; later links of the meal reuse the copy")
    func photoCopiedOnce() async throws {
        let harness = Harness()
        let meal = harness.meal(hasPhoto: true)
        let jpeg = MealPhoto(mediaType: "image/jpeg", bytes: ByteBuffer(bytes: [0xFF, 0xD8, 0xFF, 0xE0, 1, 2, 3]))
        harness.meals.add(jpeg, for: meal.mealId)
        try await harness.withRoutes { client in
            let first = try await harness.share(meal.mealId, #"{"includePhoto":true}"#, client: client)
            let second = try await harness.share(meal.mealId, #"{"includePhoto":true}"#, client: client)
            #expect(harness.meals.calls == 1)
            for token in [first, second] {
                let photo = try await client.execute(uri: "/shared/\(token)/photo", method: .get, headers: [:])
                #expect(photo.status == .ok)
                #expect(photo.headers[.contentType] == "image/jpeg")
                #expect(Array(buffer: photo.body) == Array(buffer: jpeg.bytes))
            }
        }
    }

    @Test("a meal without a photo shares without one; an unreachable meals service or no photo key is 503 and makes no link")
    func photoFailures() async throws {
        let harness = Harness()
        let plain = harness.meal(hasPhoto: false)
        let pictured = harness.meal(hasPhoto: true)
        harness.meals.add(MealPhoto(mediaType: "image/png", bytes: ByteBuffer(bytes: [0x89, 0x50, 0x4E, 0x47])), for: pictured.mealId)
        try await harness.withRoutes { client in
            let token = try await harness.share(plain.mealId, #"{"includePhoto":true}"#, client: client)
            #expect(harness.store.link(token)?.includePhoto == false)

            harness.meals.setReachable(false)
            let unreachable = try await client.execute(
                uri: "/api/share/meal/\(pictured.mealId)", method: .post, headers: harness.caller(),
                body: ByteBuffer(string: #"{"includePhoto":true}"#))
            #expect(unreachable.status == .serviceUnavailable)
            #expect(unreachable.headers[.retryAfter] != nil)
        }
        let keyless = Harness(photosConfigured: false)
        let meal = keyless.meal(hasPhoto: true)
        keyless.meals.add(MealPhoto(mediaType: "image/png", bytes: ByteBuffer(bytes: [0x89, 0x50, 0x4E, 0x47])), for: meal.mealId)
        try await keyless.withRoutes { client in
            let response = try await client.execute(
                uri: "/api/share/meal/\(meal.mealId)", method: .post, headers: keyless.caller(), body: ByteBuffer(string: #"{"includePhoto":true}"#))
            #expect(response.status == .serviceUnavailable)
            #expect(Harness.errorCode(response) == "photos_not_configured")
            let list = try await client.execute(uri: "/api/share", method: .get, headers: keyless.caller(json: false))
            #expect(try Harness.decode(Harness.LinkPage.self, list).links.isEmpty)
        }
    }

    @Test("the owner's list is newest first, pages with its cursor, shows counted views and only the owner's links")
    func list() async throws {
        let harness = Harness()
        let meal = harness.meal()
        let stranger = UUID()
        harness.meal(of: stranger)
        try await harness.withRoutes { client in
            var tokens: [String] = []
            for _ in 0..<3 {
                tokens.append(try await harness.share(meal.mealId, client: client))
                harness.advance(days: 0.001)
            }
            _ = try await client.execute(uri: "/api/share/\(tokens[0])", method: .get, headers: [:])
            _ = try await client.execute(uri: "/api/share/\(tokens[0])", method: .get, headers: [:])

            let first = try await client.execute(uri: "/api/share?limit=2", method: .get, headers: harness.caller(json: false))
            #expect(first.status == .ok)
            let page = try Harness.decode(Harness.LinkPage.self, first)
            #expect(page.links.map(\.token) == [tokens[2], tokens[1]])
            let cursor = try #require(page.nextCursor)
            let rest = try Harness.decode(
                Harness.LinkPage.self,
                try await client.execute(uri: "/api/share?limit=2&cursor=\(cursor)", method: .get, headers: harness.caller(json: false)))
            #expect(rest.links.map(\.token) == [tokens[0]] && rest.nextCursor == nil)
            #expect(rest.links.first?.viewCount == 2, "views counted in memory show at once in the owner's list")

            let strangers = try await client.execute(uri: "/api/share", method: .get, headers: harness.caller(stranger, json: false))
            #expect(try Harness.decode(Harness.LinkPage.self, strangers).links.isEmpty)
        }
    }

    @Test("a list with a limit outside 1 to 100 is 422; a cursor this API did not make is 400 invalid_cursor")
    func listRefusals() async throws {
        let harness = Harness()
        try await harness.withRoutes { client in
            for limit in ["0", "101", "many"] {
                let response = try await client.execute(uri: "/api/share?limit=\(limit)", method: .get, headers: harness.caller(json: false))
                #expect(response.status == .unprocessableContent, "limit \(limit)")
            }
            let forged = try await client.execute(uri: "/api/share?cursor=bm90LWEtY3Vyc29y", method: .get, headers: harness.caller(json: false))
            #expect(forged.status == .unprocessableContent)
            #expect(Harness.errorCode(forged) == "invalid_cursor")
        }
    }

    @Test("the public view answers 304 to a current copy, and its refusals: 404 unknown, 410 expired, revoked or meal deleted")
    func viewAnswers() async throws {
        let harness = Harness()
        let kept = harness.meal(), deletedLater = harness.meal()
        try await harness.withRoutes { client in
            let token = try await harness.share(kept.mealId, #"{"expiresInDays":1}"#, client: client)
            let view = try await client.execute(uri: "/api/share/\(token)", method: .get, headers: [:])
            let etag = try #require(view.headers[.eTag])
            let again = try await client.execute(uri: "/api/share/\(token)", method: .get, headers: [.ifNoneMatch: etag])
            #expect(again.status == .notModified)

            let unknown = try await client.execute(uri: "/api/share/\(String(repeating: "a", count: 43))", method: .get, headers: [:])
            #expect(unknown.status == .notFound && Harness.errorCode(unknown) == "share_not_found")
            let malformed = try await client.execute(uri: "/api/share/short", method: .get, headers: [:])
            #expect(malformed.status == .notFound)

            let ofDeleted = try await harness.share(deletedLater.mealId, client: client)
            harness.store.deleted(mealId: deletedLater.mealId)
            let gone = try await client.execute(uri: "/api/share/\(ofDeleted)", method: .get, headers: [:])
            #expect(gone.status == .gone && Harness.errorCode(gone) == "shared_meal_deleted")

            let revoked = try await harness.share(kept.mealId, client: client)
            #expect(
                try await client.execute(uri: "/api/share/\(revoked)", method: .delete, headers: harness.caller(json: false)).status == .noContent)
            let afterRevoke = try await client.execute(uri: "/api/share/\(revoked)", method: .get, headers: [:])
            #expect(afterRevoke.status == .gone && Harness.errorCode(afterRevoke) == "share_revoked")

            harness.advance(days: 2)
            let expired = try await client.execute(uri: "/api/share/\(token)", method: .get, headers: [:])
            #expect(expired.status == .gone && Harness.errorCode(expired) == "share_expired")
        }
    }

    @Test("revoking is 204 again and again for the owner, 404 for anyone else and for a token that never existed")
    func revoke() async throws {
        let harness = Harness()
        let meal = harness.meal()
        try await harness.withRoutes { client in
            let token = try await harness.share(meal.mealId, client: client)
            let stranger = try await client.execute(uri: "/api/share/\(token)", method: .delete, headers: harness.caller(UUID(), json: false))
            #expect(stranger.status == .notFound)
            #expect(harness.store.link(token)?.revokedAt == nil)
            for _ in 0..<2 {
                #expect(
                    try await client.execute(uri: "/api/share/\(token)", method: .delete, headers: harness.caller(json: false)).status == .noContent)
            }
            #expect(harness.store.link(token)?.revokedAt == Harness.start)
            let never = try await client.execute(
                uri: "/api/share/\(String(repeating: "b", count: 43))", method: .delete, headers: harness.caller(json: false))
            #expect(never.status == .notFound)
            let anonymous = try await client.execute(uri: "/api/share/\(token)", method: .delete, headers: [:])
            #expect(anonymous.status == .unauthorized)
        }
    }
}

import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import ServiceDefaults
import Testing

@testable import SharingService

/// The public web side of a link at the router, on an in-memory store: the page, the SVG and PNG cards and the
/// photo, and how each refuses a link that does not open.
@Suite("Shared page routes on an in-memory store")
struct SharedPageRoutesTests {
    typealias Harness = SharingRouterHarness

    @Test("the page is HTML with the meal, the owner's name when allowed, a script-free policy and a cache lifetime")
    func page() async throws {
        let harness = Harness()
        let meal = harness.meal(title: "Shakshuka")
        harness.store.named(harness.owner, "Dana")
        try await harness.withRoutes { client in
            let named = try await harness.share(meal.mealId, #"{"showDisplayName":true}"#, client: client)
            let response = try await client.execute(uri: "/shared/\(named)", method: .get, headers: [.accept: "text/html"])
            #expect(response.status == .ok)
            #expect(response.headers[.contentType] == "text/html; charset=utf-8")
            #expect(response.headers[HTTPField.Name("Content-Security-Policy")!]?.contains("default-src 'none'") == true)
            #expect(response.headers[.cacheControl] == "public, max-age=60, must-revalidate")
            let html = String(buffer: response.body)
            #expect(html.contains("Shakshuka") && html.contains("Dana"))
            #expect(html.contains("https://share.example/shared/\(named)/card.png"), "the OpenGraph image is the PNG card")

            let anonymous = try await harness.share(meal.mealId, client: client)
            let unnamed = String(buffer: try await client.execute(uri: "/shared/\(anonymous)", method: .get, headers: [:]).body)
            #expect(!unnamed.contains("Dana"))
        }
    }

    @Test("a link that does not open is a page for browsers and the error shape for everything else, 404 or 410 alike")
    func unavailable() async throws {
        let harness = Harness()
        let meal = harness.meal()
        try await harness.withRoutes { client in
            let unknown = "/shared/\(String(repeating: "c", count: 43))"
            let browser = try await client.execute(uri: unknown, method: .get, headers: [.accept: "text/html,application/xhtml+xml"])
            #expect(browser.status == .notFound)
            #expect(browser.headers[.contentType] == "text/html; charset=utf-8")
            #expect(browser.headers[.cacheControl] == "no-store")
            #expect(String(buffer: browser.body).contains("Link not found"))
            let api = try await client.execute(uri: unknown, method: .get, headers: [.accept: "application/json"])
            #expect(api.status == .notFound && Harness.errorCode(api) == "share_not_found")

            let token = try await harness.share(meal.mealId, client: client)
            _ = try await client.execute(uri: "/api/share/\(token)", method: .delete, headers: harness.caller(json: false))
            let revoked = try await client.execute(uri: "/shared/\(token)", method: .get, headers: [.accept: "text/html"])
            #expect(revoked.status == .gone)
            #expect(String(buffer: revoked.body).contains("no longer available"))
            for asset in ["card.svg", "card.png", "photo"] {
                let response = try await client.execute(uri: "/shared/\(token)/\(asset)", method: .get, headers: [:])
                #expect(response.status == .gone && Harness.errorCode(response) == "share_revoked", "\(asset)")
            }
        }
    }

    @Test("the SVG card is 1200x630 and counts no view; a current copy is 304")
    func svgCard() async throws {
        let harness = Harness()
        let meal = harness.meal(title: "Ramen")
        try await harness.withRoutes { client in
            let token = try await harness.share(meal.mealId, client: client)
            let card = try await client.execute(uri: "/shared/\(token)/card.svg", method: .get, headers: [:])
            #expect(card.status == .ok)
            #expect(card.headers[.contentType] == "image/svg+xml; charset=utf-8")
            let svg = String(buffer: card.body)
            #expect(svg.contains(#"width="1200""#) && svg.contains(#"height="630""#) && svg.contains("Ramen"))
            let etag = try #require(card.headers[.eTag])
            #expect(try await client.execute(uri: "/shared/\(token)/card.svg", method: .get, headers: [.ifNoneMatch: etag]).status == .notModified)
            let list = try await client.execute(uri: "/api/share", method: .get, headers: harness.caller(json: false))
            #expect(try Harness.decode(Harness.LinkPage.self, list).links.first?.viewCount == 0)
        }
    }

    @Test("the PNG card is rendered once per card and then served from the store; a new meal version renders anew")
    func pngCard() async throws {
        let harness = Harness()
        let meal = harness.meal(title: "Poke", version: 1)
        try await harness.withRoutes { client in
            let token = try await harness.share(meal.mealId, client: client)
            let first = try await client.execute(uri: "/shared/\(token)/card.png", method: .get, headers: [:])
            #expect(first.status == .ok)
            #expect(first.headers[.contentType] == "image/png")
            #expect(PNGHeader.dimensions(of: Array(buffer: first.body)).map { [$0.width, $0.height] } == [1200, 630])
            let second = try await client.execute(uri: "/shared/\(token)/card.png", method: .get, headers: [:])
            #expect(Array(buffer: second.body) == Array(buffer: first.body))
            #expect(harness.store.renderCount == 1)

            var edited = meal
            edited.title = "Poke with avocado"
            edited.version = 2
            harness.store.received(edited)
            let renewed = try await client.execute(uri: "/shared/\(token)/card.png", method: .get, headers: [:])
            #expect(renewed.status == .ok)
            #expect(Array(buffer: renewed.body) != Array(buffer: first.body))
            #expect(harness.store.renderCount == 1, "the older version's render is dropped")
        }
    }

    @Test("the photo of a link shared without it is 404 photo_not_shared; of an unknown link 404 share_not_found")
    func photoNotShared() async throws {
        let harness = Harness()
        let meal = harness.meal(hasPhoto: true)
        harness.meals.add(MealPhoto(mediaType: "image/png", bytes: ByteBuffer(bytes: [0x89, 0x50, 0x4E, 0x47])), for: meal.mealId)
        try await harness.withRoutes { client in
            let withPhoto = try await harness.share(meal.mealId, #"{"includePhoto":true}"#, client: client)
            let without = try await harness.share(meal.mealId, client: client)
            #expect(try await client.execute(uri: "/shared/\(withPhoto)/photo", method: .get, headers: [:]).status == .ok)
            let response = try await client.execute(uri: "/shared/\(without)/photo", method: .get, headers: [:])
            #expect(response.status == .notFound && Harness.errorCode(response) == "photo_not_shared")
            let unknown = try await client.execute(uri: "/shared/nope/photo", method: .get, headers: [:])
            #expect(unknown.status == .notFound && Harness.errorCode(unknown) == "share_not_found")
        }
    }
}

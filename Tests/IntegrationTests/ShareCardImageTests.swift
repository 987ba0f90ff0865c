import Foundation
import HTTPTypes
import HummingbirdTesting
import Logging
import NIOCore
import PostgresNIO
import PostgresSupport
import ServiceDefaults
import ServiceLifecycle
import Testing

@testable import SharingService

/// The PNG share card through the gateway: a real `rsvg-convert` render, kept in `sharing.card_renders` and served
/// from there, rendered again for a new meal version, the photo only on a link that includes it, the same refusals
/// as the other public routes, and 503 in the error shape when the rasteriser is missing.
@Suite("Share card PNG", .serialized, .enabled(if: TestEnvironment.isAvailable))
struct ShareCardImageTests {
    /// A 1x1 red PNG: a photo librsvg can draw.
    static let redPixel = Array(
        Data(base64Encoded: "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==")!)

    @Test("card.png is a 1200x630 PNG, served from the table on the next request, rendered again for a new meal version")
    func renderCacheAndNewVersion() async throws {
        try await SharingStack.run { stack in
            let (token, userId) = try await stack.signUp()
            let mealId = try await stack.logMeal(title: "Salmon and greens", token: token)
            let link = try await stack.shareLink(mealId, token: token)

            let first = try await stack.open("/shared/\(link.token)/card.png")
            #expect(first.status == .ok && first.headers[.contentType] == "image/png")
            Self.expectCardPNG(first.body)
            #expect(first.headers[.cacheControl]?.hasPrefix("public, max-age=") == true)
            let etag = try #require(first.headers[.eTag])
            let renders = try await Self.renders(of: mealId, client: stack.sharingDatabase)
            #expect(renders.count == 1 && renders.first?.png == Array(buffer: first.body))

            // The proof that the next request reads the table and does not render: it answers what the table holds.
            try await stack.sharingDatabase.query(
                "UPDATE card_renders SET png = png || '\\x00'::bytea WHERE meal_id = \(mealId)", logger: TestEnvironment.logger)
            let second = try await stack.open("/shared/\(link.token)/card.png")
            #expect(second.status == .ok && Array(buffer: second.body) == Array(buffer: first.body) + [0])
            #expect(try await stack.open("/shared/\(link.token)/card.png", headers: [.ifNoneMatch: etag]).status == .ok, "the body changed")
            let current = try #require(second.headers[.eTag])
            #expect(try await stack.open("/shared/\(link.token)/card.png", headers: [.ifNoneMatch: current]).status == .notModified)

            let page = String(buffer: try await stack.open("/shared/\(link.token)", headers: [.accept: "text/html"]).body)
            #expect(page.contains(#"<meta property="og:image" content="\#(link.url)/card.png">"#))
            #expect(page.contains(#"<meta name="twitter:image" content="\#(link.url)/card.png">"#))
            #expect(page.contains(#"<meta property="og:image:type" content="image/png">"#) && page.contains(#"og:image:width" content="1200""#))

            let edit = try await stack.gateway.call(
                .put, "/api/meals/\(mealId.uuidString.lowercased())", json: #"{"title":"Salmon, greens and rice"}"#, token: token)
            #expect(edit.status == .ok)
            _ = try await stack.eventuallyView(link.token) { (try? $0.decoded(SharedMealAnswer.self).meal.name) == "Salmon, greens and rice" }
            let edited = try await stack.open("/shared/\(link.token)/card.png")
            #expect(edited.status == .ok && Array(buffer: edited.body) != Array(buffer: second.body), "a new version renders again")
            Self.expectCardPNG(edited.body)
            let after = try await Self.renders(of: mealId, client: stack.sharingDatabase)
            #expect(after.count == 1 && after.first?.png == Array(buffer: edited.body), "the old version's render is gone")
            #expect((after.first?.version ?? 0) > (renders.first?.version ?? .max))

            #expect(try await stack.gateway.call(.delete, "/api/meals/\(mealId.uuidString.lowercased())", token: token).status == .noContent)
            _ = try await stack.eventuallyView(link.token) { $0.status == .gone }
            #expect(try await stack.open("/shared/\(link.token)/card.png").errorCode == "shared_meal_deleted")
            #expect(try await userRows(in: "card_renders", of: userId, client: stack.sharingDatabase) == 0, "a deleted meal's renders go")
        }
    }

    @Test("hostile, long, right-to-left and emoji titles and names still give a valid PNG")
    func hostileTitles() async throws {
        try await SharingStack.run { stack in
            let (token, _) = try await stack.signUp("</text><script>alert(1)</script> & 'Eve' 😀")
            let titles = [
                #"</text><script>alert("x")</script><image href="file:///etc/passwd"/>"#,
                #"Fish & chips, "large" 'n' <b>bold</b>"#,
                String(repeating: "Superlongword", count: 9), String(repeating: "Long name ", count: 12),
                "שקשוקה עם לחם 🍳🥖 مع خبز \u{202E}gnp.exe",
            ]
            for title in titles {
                let escaped = String(decoding: try JSONEncoder().encode(title), as: UTF8.self).dropFirst().dropLast()
                let mealId = try await stack.logMeal(title: String(escaped), token: token)
                let link = try await stack.shareLink(mealId, json: #"{"showDisplayName":true}"#, token: token)
                let card = try await stack.open("/shared/\(link.token)/card.png")
                #expect(card.status == .ok, "\(title.prefix(20)): \(card.status) \(card.errorCode ?? "")")
                Self.expectCardPNG(card.body)
            }
        }
    }

    @Test("the photo is drawn only on a link that includes it")
    func photoOnlyWhenIncluded() async throws {
        try await SharingStack.run { stack in
            let (token, _) = try await stack.signUp()
            stack.vision.script(
                #"{"items":[{"name":"tomato","amount":1,"unit":"medium","grams":123,"confidence":0.9,"calories_kcal":22,"protein_g":1.1,"#
                    + #""carbs_g":4.8,"fat_g":0.2,"fiber_g":1.5,"sugars_g":3.2,"saturated_fat_g":0,"sodium_mg":6,"alcohol_g":0}]}"#)
            let analyzed = try await stack.gateway.call(
                .post, "/api/analyze", json: #"{"image":"\#(Data(Self.redPixel).base64EncodedString())"}"#, token: token)
            #expect(analyzed.status == .created, "\(String(buffer: analyzed.body))")
            let mealId = try analyzed.decoded(MealAnswer.self).id
            let withPhoto = try await stack.shareLink(mealId, json: #"{"includePhoto":true}"#, token: token)
            let withoutPhoto = try await stack.shareLink(mealId, token: token)
            #expect(withPhoto.includesPhoto && !withoutPhoto.includesPhoto)

            let pictured = try await stack.open("/shared/\(withPhoto.token)/card.png")
            let plain = try await stack.open("/shared/\(withoutPhoto.token)/card.png")
            #expect(pictured.status == .ok && plain.status == .ok)
            Self.expectCardPNG(pictured.body)
            Self.expectCardPNG(plain.body)
            #expect(try await Self.renders(of: mealId, client: stack.sharingDatabase).count == 2, "one render per card")

            // The SVG card never carries the photo, so rasterising it here gives the card without the photo: the link
            // without the photo is exactly that, the link with it is not.
            let rasteriser = CardRasteriser(settings: CardRasteriserSettings(), logger: TestEnvironment.logger)
            let services = ServiceGroup(services: [rasteriser], logger: TestEnvironment.logger)
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await services.run() }
                defer { group.cancelAll() }
                let plainSVG = String(buffer: try await stack.open("/shared/\(withoutPhoto.token)/card.svg").body)
                let picturedSVG = String(buffer: try await stack.open("/shared/\(withPhoto.token)/card.svg").body)
                #expect(!plainSVG.contains("<image") && !picturedSVG.contains("<image"))
                #expect(Array(buffer: try await rasteriser.png(plainSVG)) == Array(buffer: plain.body))
                #expect(Array(buffer: try await rasteriser.png(picturedSVG)) != Array(buffer: pictured.body))
                await services.triggerGracefulShutdown()
            }
        }
    }

    @Test("unknown, malformed, revoked and expired links answer as the other public routes; revoking drops unused renders")
    func refusals() async throws {
        try await SharingStack.run { stack in
            let (token, userId) = try await stack.signUp()
            let unknown = try await stack.open("/shared/\(String(repeating: "A", count: 43))/card.png")
            #expect(unknown.status == .notFound && unknown.errorCode == "share_not_found")
            #expect(try await stack.open("/shared/nope/card.png").status == .notFound)

            let mealId = try await stack.logMeal(token: token)
            let link = try await stack.shareLink(mealId, token: token)
            #expect(try await stack.open("/shared/\(link.token)/card.png").status == .ok)
            #expect(try await userRows(in: "card_renders", of: userId, client: stack.sharingDatabase) == 1)
            #expect(try await stack.gateway.call(.delete, "/api/share/\(link.token)", token: token).status == .noContent)
            let revoked = try await stack.open("/shared/\(link.token)/card.png")
            #expect(revoked.status == .gone && revoked.errorCode == "share_revoked")
            #expect(try await userRows(in: "card_renders", of: userId, client: stack.sharingDatabase) == 0, "no open link shows it")

            let day = try await stack.shareLink(mealId, json: #"{"expiresInDays":1}"#, token: token)
            #expect(try await stack.open("/shared/\(day.token)/card.png").status == .ok)
            stack.clock.advance(by: 2 * 86_400)
            let expired = try await stack.open("/shared/\(day.token)/card.png")
            #expect(expired.status == .gone && expired.errorCode == "share_expired")
        }
    }

    @Test("without a rasteriser card.png answers 503 card_unavailable in the error shape, and the SVG card still works")
    func missingRasteriser() async throws {
        try await SharingStack.run(sharingSettings: ["sharing.card.rasteriser": "/nonexistent/rsvg-convert"]) { stack in
            let (token, _) = try await stack.signUp()
            let link = try await stack.shareLink(try await stack.logMeal(token: token), token: token)
            let card = try await stack.open("/shared/\(link.token)/card.png")
            #expect(card.status == .serviceUnavailable && card.errorCode == "card_unavailable")
            #expect(card.headers[.retryAfter] != nil)
            let body = try card.decoded(ErrorBody.self)
            #expect(!body.error.message.contains("rsvg") && !body.error.message.contains("/nonexistent"))
            #expect(try await stack.open("/shared/\(link.token)/card.svg").status == .ok)
        }
    }

    /// Expects the PNG signature and an `IHDR` of 1200x630.
    static func expectCardPNG(_ body: ByteBuffer, sourceLocation: SourceLocation = #_sourceLocation) {
        let bytes = Array(buffer: body)
        #expect(Array(bytes.prefix(8)) == PNGHeader.signature, "PNG signature", sourceLocation: sourceLocation)
        let size = PNGHeader.dimensions(of: bytes)
        #expect(size?.width == 1200 && size?.height == 630, "IHDR \(String(describing: size))", sourceLocation: sourceLocation)
    }

    /// The meal's stored renders: meal version and PNG bytes.
    static func renders(of mealId: UUID, client: PostgresPool) async throws -> [(version: Int, png: [UInt8])] {
        var found: [(version: Int, png: [UInt8])] = []
        let rows = try await client.query(
            "SELECT meal_version, png FROM card_renders WHERE meal_id = \(mealId) ORDER BY meal_version", logger: TestEnvironment.logger)
        for try await (version, png) in rows.decode((Int, ByteBuffer).self) { found.append((version, Array(buffer: png))) }
        return found
    }
}

import EventContracts
import Foundation
import Testing

@testable import SharingService

#if canImport(FoundationXML)
import FoundationXML
#endif

@Suite("Shared page and card")
struct SharedPageRendererTests {
    static let addresses = PublicAddresses(baseURL: "https://share.example")

    static func shared(title: String, notes: String?, displayName: String?, photo: Bool = false) -> SharedMeal {
        let totals = NutrientTotals(calories: 512.4, proteinGrams: 31.34, carbsGrams: 40, fatGrams: 22.5, fiberGrams: 6)
        let item = MealSnapshotItem(
            name: title, amount: 1.5, unit: "cup<br>", grams: 240, nutrients: totals, healthScore: 71, healthRating: "good", source: "manual")
        let meal = MealSnapshot(
            mealId: UUID(), userId: UUID(), title: title, origin: "manual", mealType: "dinner", captureKind: "full_meal",
            eatenAt: Date(timeIntervalSince1970: 1_763_750_000), localDate: "2025-11-21", timeZone: "America/New_York", isConsumed: true,
            edited: false, notes: notes, hasPhoto: photo, items: [item], totals: totals, healthScore: 71, healthRating: "good",
            dietPreference: "low_carb", dietScore: 64, dietBand: "yellow", dietExplanation: "Carbs are above your <target>.", version: 3)
        return SharedMeal(
            token: String(repeating: "t", count: 43), meal: meal, displayName: displayName, expiresAt: Date(timeIntervalSince1970: 1_764_000_000),
            photoDigest: photo ? "digest" : nil)
    }

    static let hostile = #"</title><script>alert("x")</script> & 'quotes' <img src=x onerror=alert(1)>"# + "\u{7}\u{202E}"

    @Test("every user string in the page is escaped; the page has OpenGraph and Twitter tags and the brand")
    func page() throws {
        let renderer = try SharedPageRenderer.bundled()
        let view = SharedMealView(Self.shared(title: Self.hostile, notes: Self.hostile, displayName: "<i>Mallory</i>"), addresses: Self.addresses)
        let html = renderer.page(view)
        for forbidden in ["<script>", "<img src=x", "</title><", "<i>Mallory", "cup<br>", "<target>", "\u{7}", "\u{202E}"] {
            #expect(!html.contains(forbidden), "\(forbidden.debugDescription) must be escaped or removed")
        }
        #expect(html.contains("&lt;/title&gt;&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;quotes&#39;"))
        #expect(html.contains("&lt;i&gt;Mallory&lt;/i&gt;"))
        #expect(html.contains(#"<meta property="og:image" content="https://share.example/shared/\#(String(repeating: "t", count: 43))/card.png">"#))
        #expect(html.contains(#"<meta property="og:image:type" content="image/png">"#))
        #expect(html.contains(#"<meta name="twitter:image" content="https://share.example/shared/\#(String(repeating: "t", count: 43))/card.png">"#))
        #expect(html.contains(#"<meta name="twitter:card" content="summary_large_image">"#))
        #expect(html.contains("512 kcal") && html.contains("Protein 31.3 g") && html.contains("Low-carb diet score"))
        #expect(html.contains("Nov 21, 2025"), "the meal's time in its own zone")
        #expect(!html.contains("class=\"photo\""), "no photo element without a shared photo")
        let withPhoto = renderer.page(
            SharedMealView(Self.shared(title: "Soup", notes: nil, displayName: nil, photo: true), addresses: Self.addresses))
        #expect(withPhoto.contains(#"src="https://share.example/shared/\#(String(repeating: "t", count: 43))/photo""#))
    }

    @Test("the card is a well-formed 1200x630 SVG with the scores and the brand, whatever the text")
    func card() throws {
        let renderer = try SharedPageRenderer.bundled()
        for title in [Self.hostile, "Soup", String(repeating: "Very long name ", count: 20), "味噌汁と焼き魚"] {
            let svg = renderer.card(SharedMealView(Self.shared(title: title, notes: nil, displayName: "Ann & Bob"), addresses: Self.addresses))
            let parser = XMLParser(data: Data(svg.utf8))
            #expect(parser.parse(), "\(title.prefix(20)): \(String(describing: parser.parserError))")
            #expect(svg.contains(#"width="1200" height="630""#))
            #expect(svg.contains(">64<") && svg.contains(">71<"), "diet and health scores")
            #expect(svg.contains("Shared by Ann &amp; Bob") && svg.contains("share.example"))
            #expect(!svg.contains("<script") && !svg.contains("<img"))
        }
        let anonymous = renderer.card(SharedMealView(Self.shared(title: "Soup", notes: nil, displayName: nil), addresses: Self.addresses))
        #expect(anonymous.contains("Shared with NutritionAI") && !anonymous.contains("Shared by"))
    }

    @Test("an unavailable link's page says why")
    func unavailable() throws {
        let html = try SharedPageRenderer.bundled().unavailable(heading: "This link is no longer available", message: "It <expired>.")
        #expect(html.contains("This link is no longer available") && html.contains("It &lt;expired&gt;."))
    }
}

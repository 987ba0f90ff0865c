import EventContracts
import Foundation

/// The words and numbers of a shared meal as the page and the card show them. Every user-supplied string is
/// kept as text here; the templates escape it, and `PageText.clean` removes what no document may contain.
struct SharedMealView: Sendable {
    struct Item: Sendable {
        var name: String
        var portion: String
        var calories: String
        var health: String
    }

    /// One line of the card's title; `y` is its baseline.
    struct Line: Sendable {
        var text: String
        var y: Int
    }

    /// A 0-100 score drawn as a ring.
    struct Score: Sendable {
        var value: Int
        /// What was rated: the diet's name ("Keto") or the health rating ("Good").
        var name: String
        /// "diet score" or "health score".
        var kind: String
        /// A sentence for the page (the diet score's explanation).
        var caption: String?
        var color: String
        /// Length of the ring's arc for a circle of radius `ScoreRing.radius`.
        var arc: String
        var circumference: String
    }

    var title: String
    /// The card's title in at most two lines.
    var titleLines: [Line]
    var mealType: String?
    var when: String
    var calories: String
    var protein: String
    var carbs: String
    var fat: String
    var items: [Item]
    var notes: String?
    var sharedBy: String?
    var diet: Score
    var health: Score?
    var pageUrl: String
    var cardUrl: String
    /// The PNG card (`og:image`, `twitter:image`).
    var cardImageUrl: String
    var photoUrl: String?
    /// The photo inlined as a `data:` URI, set only for the PNG render of a link that includes the photo.
    var cardPhoto: String?
    var description: String
    var expires: String
    /// The host people see in the card's footer.
    var site: String

    init(_ shared: SharedMeal, addresses: PublicAddresses) {
        let meal = shared.meal
        title = PageText.clean(meal.title)
        titleLines = PageText.lines(title, width: 24, maximumLines: 2).enumerated().map { Line(text: $1, y: 250 + 66 * $0) }
        mealType = meal.mealType.map { $0.prefix(1).uppercased() + $0.dropFirst() }
        let zone = TimeZone(identifier: meal.timeZone) ?? .gmt
        when = meal.eatenAt.formatted(
            Date.FormatStyle(date: .abbreviated, time: .shortened, locale: Locale(identifier: "en_US"), timeZone: zone))
        calories = PageText.number(meal.totals.calories, decimals: 0)
        protein = PageText.number(meal.totals.proteinGrams, decimals: 1) + " g"
        carbs = PageText.number(meal.totals.carbsGrams, decimals: 1) + " g"
        fat = PageText.number(meal.totals.fatGrams, decimals: 1) + " g"
        items = meal.items.map { item in
            Item(
                name: PageText.clean(item.name),
                portion: "\(PageText.number(item.amount, decimals: 2)) \(PageText.clean(item.unit)) (\(PageText.number(item.grams, decimals: 0)) g)",
                calories: PageText.number(item.nutrients.calories, decimals: 0),
                health: HealthRating(rawValue: item.healthRating)?.label ?? PageText.clean(item.healthRating))
        }
        notes = meal.notes.map(PageText.clean).flatMap { $0.isEmpty ? nil : $0 }
        sharedBy = shared.displayName.map(PageText.clean).flatMap { $0.isEmpty ? nil : $0 }
        let dietName = meal.dietPreference.replacingOccurrences(of: "_", with: "-")
        diet = Score(
            name: dietName.prefix(1).uppercased() + dietName.dropFirst(), kind: "diet score",
            caption: Optional(PageText.clean(meal.dietExplanation)).flatMap { $0.isEmpty ? nil : $0 },
            color: Self.bandColor(meal.dietBand), score: meal.dietScore)
        health = meal.healthScore.map { score in
            let rating = HealthRating(rawValue: meal.healthRating ?? "") ?? HealthRating(score: score)
            return Score(name: rating.label, kind: "health score", caption: nil, color: Self.ratingColor(rating), score: score)
        }
        pageUrl = addresses.page(shared.token)
        cardUrl = addresses.card(shared.token)
        cardImageUrl = addresses.cardImage(shared.token)
        photoUrl = shared.photoDigest == nil ? nil : addresses.photo(shared.token)
        var summary = "\(calories) kcal · protein \(protein) · carbs \(carbs) · fat \(fat) · \(diet.name) diet score \(diet.value)/100"
        if let health { summary += " · health score \(health.value)/100 (\(health.name))" }
        description = summary
        expires = shared.expiresAt.formatted(
            Date.FormatStyle(date: .abbreviated, time: .omitted, locale: Locale(identifier: "en_US"), timeZone: .gmt))
        site = URL(string: addresses.baseURL)?.host ?? "NutritionAI"
    }

    static func bandColor(_ band: String) -> String {
        switch band {
        case "green": "#22c55e"
        case "yellow": "#eab308"
        default: "#ef4444"
        }
    }

    static func ratingColor(_ rating: HealthRating) -> String {
        switch rating {
        case .nutritious: "#22c55e"
        case .good: "#84cc16"
        case .fair: "#eab308"
        case .limited: "#ef4444"
        }
    }
}

extension SharedMealView.Score {
    /// Radius of the score rings in the page and the card.
    static let radius = 54.0

    init(name: String, kind: String, caption: String?, color: String, score: Int) {
        let circumference = 2 * Double.pi * Self.radius
        self.init(
            value: score, name: name, kind: kind, caption: caption, color: color,
            arc: PageText.number(circumference * Double(min(max(score, 0), 100)) / 100, decimals: 1),
            circumference: PageText.number(circumference, decimals: 1))
    }
}

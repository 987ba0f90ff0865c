/// The whole food table in memory (about 8,800 foods, a few megabytes): look-up by id and ranked search.
/// Built once by its user (meals from its `meals.foods` table; unit tests from the data file) and never changed.
public struct FoodCatalog: Sendable {
    public let foods: [FoodRecord]
    private let positionsById: [String: Int]
    private let index: FoodSearchIndex

    public init(foods: [FoodRecord]) {
        self.foods = foods
        self.positionsById = Dictionary(foods.enumerated().map { ($1.id, $0) }, uniquingKeysWith: { first, _ in first })
        self.index = FoodSearchIndex(names: foods.map(\.name), groups: foods.map(\.group))
    }

    /// The food with USDA id `id`.
    public func food(id: String) -> FoodRecord? {
        positionsById[id].map { foods[$0] }
    }

    /// Foods matching `query`, best first, with their relevance (1 or more is a full match); an everyday
    /// word's usual food (`EverydayFoods`) comes first.
    public func search(_ query: String, limit: Int) -> [(food: FoodRecord, relevance: Double)] {
        let ranked = index.search(query, limit: limit).map { (food: foods[$0.index], relevance: $0.score) }
        guard let pinned = EverydayFoods.pinnedId(for: query).flatMap(food(id:)) else { return ranked }
        let best = max(1.2, ranked.first?.relevance ?? 0)
        return Array(([(food: pinned, relevance: best)] + ranked.filter { $0.food.id != pinned.id }).prefix(limit))
    }

    /// The food a person most likely means by `phrase`, if any covers at least most of its words.
    public func bestMatch(for phrase: String) -> (food: FoodRecord, relevance: Double)? {
        guard let best = search(phrase, limit: 1).first, best.relevance >= Self.minimumMatchRelevance else { return nil }
        return best
    }

    /// Below this a match is a guess; the analyser keeps the model's own estimate instead.
    public static let minimumMatchRelevance = 0.55
}

import Foundation
import Hummingbird
import ServiceDefaults

/// The food table: `GET /api/foods/search?q=&limit=` (ranked, tolerant of typos and plurals) and `GET /api/foods/:id`.
/// Search answers are ranked, not paged: `limit` (1-50, default 20) bounds them.
struct FoodController: Sendable {
    let foods: any FoodCatalogSource

    func addRoutes(to router: Router<AppRequestContext>) {
        router.get("/api/foods/search", use: search)
        router.get("/api/foods/:id", use: show)
    }

    @Sendable func search(request: Request, context: AppRequestContext) async throws -> FoodSearchBody {
        _ = try CallerIdentity(request)
        let parameters = request.uri.queryParameters
        var problems: [String: String] = [:]
        let query = parameters["q"].map(String.init)?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
        if query.isEmpty || query.count > 100 { problems["q"] = "Give 1 to 100 characters to search for." }
        let limit = parameters["limit"].map { Int(String($0)) ?? -1 } ?? 20
        if !(1...50).contains(limit) { problems["limit"] = "Use 1 to 50." }
        guard problems.isEmpty else { throw APIError.invalid(problems) }
        let results = try foods.catalog().search(query, limit: limit).map { match in
            FoodSummaryBody(
                id: match.food.id, name: match.food.name, group: match.food.group.displayName,
                relevance: (match.relevance * 100).rounded() / 100, per100g: match.food.per100g,
                measures: match.food.measures)
        }
        return FoodSearchBody(query: query, results: results)
    }

    @Sendable func show(request: Request, context: AppRequestContext) async throws -> FoodBody {
        _ = try CallerIdentity(request)
        guard let id = context.parameters.get("id"), let food = try foods.catalog().food(id: id),
            let nutrients = try await foods.nutrients(of: id, logger: context.logger)
        else { throw APIError.notFound("No such food.") }
        return FoodBody(
            id: food.id, name: food.name, group: food.group.displayName, traits: food.traits, per100g: food.per100g,
            nutrients: nutrients, measures: food.measures)
    }
}

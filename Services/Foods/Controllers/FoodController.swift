import FoodData
import Foundation
import Hummingbird
import Logging
import ServiceDefaults

/// Finding food: `GET /api/foods/search?q=&limit=` over the USDA table and products together (typo-tolerant; ranked,
/// not paged: `limit` 1-50, default 20), `GET /api/foods/{id}` (a USDA id or a product's UUID) and
/// `GET /api/foods/barcode/{code}` (`BarcodeLookup`, answers kept a moment in `BarcodeAnswerCache`). Every product is
/// answered with how far it can be trusted (`ProductTrust`, confirmed by the accounts `established` holds).
struct FoodController: Sendable {
    let generic: any GenericFoods
    let products: any ProductStore
    let barcodes: BarcodeLookup
    /// Look-ups' answers kept for a moment.
    let answers: BarcodeAnswerCache
    /// Whose logging confirms a product (`FOODS_ESTABLISHED_ACCOUNT_*`).
    let established: EstablishedAccountRule
    let now: @Sendable () -> Date

    func addRoutes(to router: Router<AppRequestContext>) {
        router.get("/api/foods/search", use: search)
        router.get("/api/foods/barcode/:code", use: barcode)
        router.get("/api/foods/:id", use: show)
    }

    @Sendable func search(request: Request, context: AppRequestContext) async throws -> FoodSearchBody {
        let caller = try CallerIdentity(request)
        let parameters = request.uri.queryParameters
        var problems: [String: String] = [:]
        let query = parameters["q"].map(String.init)?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
        if query.isEmpty || query.count > 100 { problems["q"] = "Give 1 to 100 characters to search for." }
        let limit = parameters["limit"].map { Int(String($0)) ?? -1 } ?? 20
        if !(1...50).contains(limit) { problems["limit"] = "Use 1 to 50." }
        guard problems.isEmpty else { throw APIError.invalid(problems) }
        let generic = try generic.catalog().search(query, limit: limit).map { match in
            FoodSearchResultBody(generic: match.food, relevance: match.relevance)
        }
        let matches = try await products.search(query, caller: caller.userId, limit: limit, logger: context.logger)
        let trust = try await products.trust(of: matches.map(\.product), rule: established, now: now(), logger: context.logger)
        let products = matches.map { match in
            FoodSearchResultBody(product: match.product, confirmations: trust[match.product.id]?.confirmations ?? 0, relevance: match.relevance)
        }
        // Best first; on equal relevance products before generic foods (a brand's own entry is the more exact).
        let merged = (products + generic).enumerated().sorted { lhs, rhs in
            lhs.element.relevance != rhs.element.relevance ? lhs.element.relevance > rhs.element.relevance : lhs.offset < rhs.offset
        }
        let results = merged.prefix(limit).map { entry in
            var result = entry.element
            result.relevance = (result.relevance * 100).rounded() / 100
            return result
        }
        return FoodSearchBody(query: query, results: results)
    }

    @Sendable func show(request: Request, context: AppRequestContext) async throws -> Response {
        let caller = try CallerIdentity(request)
        let id = context.parameters.get("id") ?? ""
        if let productId = UUID(uuidString: id) {
            guard let product = try await products.product(id: productId, logger: context.logger),
                try await products.isVisible(product, to: caller.userId, logger: context.logger)
            else { throw APIError.notFound("No such food.") }
            let trust = try await products.trust(of: product, rule: established, now: now(), logger: context.logger)
            return try ProductBody(product, trust: trust, caller: caller.userId).response(from: request, context: context)
        }
        guard let food = try generic.catalog().food(id: id), let nutrients = try generic.nutrients(of: id) else {
            throw APIError.notFound("No such food.")
        }
        return try GenericFoodBody(
            id: food.id, name: food.name, group: food.group.displayName, traits: food.traits, per100g: food.per100g, nutrients: nutrients,
            measures: food.measures
        ).response(from: request, context: context)
    }

    /// A kept answer when there is one (`BarcodeAnswerCache`), else the look-up, whose answer is kept when it is the same
    /// for everyone.
    @Sendable func barcode(request: Request, context: AppRequestContext) async throws -> Response {
        let caller = try CallerIdentity(request)
        // Printed codes may be spaced ("0 36000 29145 2"): the path segment comes percent-encoded.
        let code = context.parameters.get("code").map { $0.removingPercentEncoding ?? $0 } ?? ""
        let readings = try BarcodeLookup.readings(of: code)
        if let (kept, renew) = answers.entry(for: readings), barcodes.answersAsStored(kept.product) {
            if renew { Task { await renewAnswer(for: readings, logger: context.logger) } }
            return ProductBody.response(fields: kept.fields, mine: kept.product.authorId == caller.userId)
        }
        let generation = answers.generation
        let product = try await barcodes.product(readings: readings, caller: caller.userId, logger: context.logger)
        let trust = try await products.trust(of: product, rule: established, now: now(), logger: context.logger)
        guard barcodes.answersAsStored(product) else {
            return try ProductBody(product, trust: trust, caller: caller.userId).response(from: request, context: context)
        }
        let fields = try ProductBody.fields(of: product, trust: trust)
        answers.keep(product, fields: fields, for: readings, readAt: generation)
        return ProductBody.response(fields: fields, mine: product.authorId == caller.userId)
    }

    /// Reads a kept answer's product again, in the background of a hit: kept anew when it is still the same for
    /// everyone and needs no question to Open Food Facts, dropped when not (the next look-up then takes the whole way),
    /// left to expire when the read failed.
    private func renewAnswer(for readings: [GTIN], logger: Logger) async {
        let generation = answers.generation
        do {
            guard let product = try await barcodes.storedAnswer(readings: readings, logger: logger) else { return answers.drop(readings) }
            let trust = try await products.trust(of: product, rule: established, now: now(), logger: logger)
            answers.keep(product, fields: try ProductBody.fields(of: product, trust: trust), for: readings, readAt: generation)
        } catch {
            logger.warning("a kept barcode answer could not be renewed", metadata: ["error": "\(String(reflecting: type(of: error)))"])
            answers.renewalFailed(for: readings)
        }
    }
}

import Foundation
import Hummingbird
import ServiceDefaults

/// What the user's photo analyses cost (`/api/users/vision-usage`, routed here by the gateway ahead of the rest of
/// `/api/users`): a month's calls, tokens and estimated cost per key, and the monthly budget past 80% of which photo
/// analysis answers carry a `usageWarning`.
struct VisionUsageController: Sendable {
    let usage: any VisionUsageStore
    let keys: any VisionKeyStore
    let prices: VisionPrices
    let now: @Sendable () -> Date

    static let budgetRange = 0.01...100_000.0

    func addRoutes(to router: Router<AppRequestContext>) {
        router.get("/api/users/vision-usage", use: usage)
        router.put("/api/users/vision-usage/budget", use: setBudget)
        router.delete("/api/users/vision-usage/budget", use: removeBudget)
    }

    /// `GET /api/users/vision-usage?month=YYYY-MM` (default: this UTC month): the month's usage; 422 for another `month`.
    @Sendable func usage(request: Request, context: AppRequestContext) async throws -> VisionUsageBody {
        let userId = try CallerIdentity(request).userId
        var month = UsageMonth(containing: now())
        if let text = request.uri.queryParameters["month"].map(String.init) {
            guard let asked = UsageMonth(text) else { throw APIError.invalid(["month": "Give the month as YYYY-MM, e.g. 2026-11."]) }
            month = asked
        }
        let rows = try await usage.rows(userId: userId, month: month, logger: context.logger)
        let budget = try await usage.budget(userId: userId, logger: context.logger)
        let current = try await keys.find(userId: userId, logger: context.logger)?.usageKey
        return VisionUsageBody(month: month, rows: rows, prices: prices, budget: budget, currentKey: current)
    }

    /// `PUT /api/users/vision-usage/budget` {monthlyBudgetUsd}: 200 with the budget; 422 unless it is 0.01 to 100000.
    @Sendable func setBudget(request: Request, context: AppRequestContext) async throws -> VisionBudgetBody {
        let userId = try CallerIdentity(request).userId
        let body = try await request.decodeJSON(as: VisionBudgetBody.self, context: context)
        guard let dollars = body.monthlyBudgetUsd, Self.budgetRange.contains(dollars) else {
            throw APIError.invalid(
                ["monthlyBudgetUsd": "Send the monthly budget in US dollars, 0.01 to 100000; DELETE the budget to have none."])
        }
        try await usage.setBudget(dollars, userId: userId, at: now(), logger: context.logger)
        return VisionBudgetBody(monthlyBudgetUsd: dollars)
    }

    /// `DELETE /api/users/vision-usage/budget`: 204; analyses carry no warning any more. 204 too when none was set.
    @Sendable func removeBudget(request: Request, context: AppRequestContext) async throws -> HTTPResponse.Status {
        try await usage.deleteBudget(userId: try CallerIdentity(request).userId, logger: context.logger)
        return .noContent
    }
}

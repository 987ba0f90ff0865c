import Foundation
import Hummingbird

/// `GET /api/users/vision-usage` answer: one month's photo analyses of the user, all keys together and per key and
/// model, with the estimated cost from the price table (`MEALS_VISION_PRICES`) and the budget the user set.
struct VisionUsageBody: ResponseCodable, Equatable {
    /// One key and model's share of the month.
    struct KeyUsage: ResponseCodable, Equatable {
        /// `server` (the server's provider pays) or `own` (the user's own key).
        var key: String
        /// The id of the user's own key the usage was counted under; a new key (each PUT) gets a new id.
        var keyId: String?
        /// Whether this is the user's key stored now.
        var current: Bool
        var model: String
        var calls: Int
        var promptTokens: Int
        var completionTokens: Int
        var totalTokens: Int
        /// Nil when the price table has no price for the model.
        var estimatedCostUsd: Double?
    }

    var month: String
    /// Answers of the provider (a retried photo may take more than one).
    var calls: Int
    var promptTokens: Int
    var completionTokens: Int
    var totalTokens: Int
    /// All keys together, models without a price left out (`unpricedModels`).
    var estimatedCostUsd: Double
    /// The user's own keys only: what the budget is compared with.
    var ownKeyEstimatedCostUsd: Double
    var monthlyBudgetUsd: Double?
    var usageWarning: VisionUsageWarning?
    var unpricedModels: [String]
    var byKey: [KeyUsage]

    init(month: UsageMonth, rows: [VisionUsageRepository.Row], prices: VisionPrices, budget: Double?, currentKey: UUID?) {
        self.month = month.text
        byKey = rows.map { row in
            let own = row.usageKey != VisionUsageRepository.serverKey
            return KeyUsage(
                key: own ? "own" : "server", keyId: own && row.usageKey != VisionUsageRepository.ownKey ? row.usageKey : nil,
                current: own && row.usageKey == currentKey?.lowercasedString, model: row.model, calls: row.calls,
                promptTokens: row.usage.promptTokens, completionTokens: row.usage.completionTokens, totalTokens: row.usage.totalTokens,
                estimatedCostUsd: prices.cost(of: row.usage, model: row.model).map(Self.rounded))
        }
        calls = rows.reduce(0) { $0 + $1.calls }
        promptTokens = rows.reduce(0) { $0 + $1.usage.promptTokens }
        completionTokens = rows.reduce(0) { $0 + $1.usage.completionTokens }
        totalTokens = promptTokens + completionTokens
        estimatedCostUsd = Self.rounded(Self.cost(of: rows, prices: prices))
        let ownCost = Self.ownKeyCost(of: rows, prices: prices)
        ownKeyEstimatedCostUsd = Self.rounded(ownCost)
        monthlyBudgetUsd = budget
        usageWarning = budget.flatMap { VisionUsageWarning(cost: ownCost, budget: $0, month: month) }
        unpricedModels = Array(Set(rows.filter { prices.price(of: $0.model) == nil }.map(\.model))).sorted()
    }

    /// The estimated cost of `rows`, models without a price counted as free.
    static func cost(of rows: [VisionUsageRepository.Row], prices: VisionPrices) -> Double {
        rows.reduce(0) { $0 + (prices.cost(of: $1.usage, model: $1.model) ?? 0) }
    }

    /// The estimated cost of the rows of the user's own keys: what the budget is about.
    static func ownKeyCost(of rows: [VisionUsageRepository.Row], prices: VisionPrices) -> Double {
        cost(of: rows.filter { $0.usageKey != VisionUsageRepository.serverKey }, prices: prices)
    }

    /// Dollars to a millionth, so sums of small costs do not show binary fractions.
    static func rounded(_ dollars: Double) -> Double {
        (dollars * 1_000_000).rounded() / 1_000_000
    }
}

import Configuration
import Foundation
import ServiceDefaults

/// What a model's tokens cost, in US dollars per million input (prompt) and output (completion) tokens, for the
/// estimated cost of users' analyses (`MEALS_VISION_PRICES`: `model=input:output,...`, e.g.
/// `gpt-4o-mini=0.15:0.60,gpt-4o=2.50:10.00`; `*=input:output` prices every model not named). A model is priced by its
/// own name or, for a dated variant such as `gpt-4o-mini-2024-07-18`, by the name it extends with `-` and a digit.
/// Estimates only: the provider's invoice is what counts, and operators should keep the table at their providers' prices.
struct VisionPrices: Sendable, Equatable {
    /// Dollars per million tokens.
    struct Price: Sendable, Equatable {
        var input: Double
        var output: Double
    }

    /// The documented default: OpenAI's and Google's list prices of their vision models (2025), per million tokens.
    static let defaultTable =
        "gpt-4o-mini=0.15:0.60,gpt-4o=2.50:10.00,gpt-4.1-nano=0.10:0.40,gpt-4.1-mini=0.40:1.60,gpt-4.1=2.00:8.00,"
        + "gemini-2.0-flash=0.10:0.40,gemini-2.5-flash=0.30:2.50"

    var prices: [String: Price]

    /// The table of `MEALS_VISION_PRICES` (default `defaultTable`); throws `ConfigurationError` for an unreadable entry.
    init(config: ConfigReader) throws {
        try self.init(table: config.string(forKey: "meals.vision.prices", default: Self.defaultTable))
    }

    /// The table written as `model=input:output,...`; an empty text prices nothing.
    init(table: String) throws {
        var prices: [String: Price] = [:]
        for entry in table.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) where !entry.isEmpty {
            let halves = entry.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            let numbers = halves.count == 2 ? halves[1].split(separator: ":").compactMap { Double($0.trimmingCharacters(in: .whitespaces)) } : []
            guard halves.count == 2, !halves[0].isEmpty, numbers.count == 2, numbers.allSatisfy({ $0 >= 0 && $0.isFinite }) else {
                throw ConfigurationError.invalid(
                    "MEALS_VISION_PRICES", reason: "\"\(entry)\" is not model=input:output (dollars per million tokens, e.g. gpt-4o-mini=0.15:0.60)")
            }
            prices[halves[0].lowercased()] = Price(input: numbers[0], output: numbers[1])
        }
        self.prices = prices
    }

    /// The price of `model`; nil when the table has none for it.
    func price(of model: String) -> Price? {
        let name = model.lowercased()
        if let exact = prices[name] { return exact }
        let extended = prices.keys.filter { key in
            guard key != "*", name.hasPrefix(key + "-"), let next = name.dropFirst(key.count + 1).first else { return false }
            return next.isNumber
        }
        if let base = extended.max(by: { $0.count < $1.count }) { return prices[base] }
        return prices["*"]
    }

    /// The estimated cost in dollars of `usage` with `model`; nil when the model has no price.
    func cost(of usage: TokenUsage, model: String) -> Double? {
        guard let price = price(of: model) else { return nil }
        return (Double(usage.promptTokens) * price.input + Double(usage.completionTokens) * price.output) / 1_000_000
    }
}

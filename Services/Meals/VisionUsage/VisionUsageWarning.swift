import Foundation
import Hummingbird

/// `usageWarning` of a photo analysis answer: the estimated cost of the user's own keys this month has reached 80% of
/// the monthly budget they set (`vision_budget_nearly_spent`), or all of it (`vision_budget_exceeded`). Analyses go on
/// all the same; the warning is for the user to decide.
struct VisionUsageWarning: ResponseCodable, Equatable {
    /// The share of the budget from which answers carry the warning.
    static let threshold = 0.8

    var code: String
    var message: String
    var month: String
    var estimatedCostUsd: Double
    var monthlyBudgetUsd: Double
    /// Whole per cent of the budget spent, rounded down.
    var percentOfBudget: Int

    /// The warning for `cost` of `budget` in `month`; nil below `threshold`.
    init?(cost: Double, budget: Double, month: UsageMonth) {
        guard budget > 0, cost >= budget * Self.threshold else { return nil }
        percentOfBudget = Int((cost / budget * 100).rounded(.down))
        let spent = String(format: "$%.2f of your $%.2f", cost, budget)
        if cost >= budget {
            code = "vision_budget_exceeded"
            message = "Your photo analyses this month are estimated at \(spent) monthly budget: over budget."
        } else {
            code = "vision_budget_nearly_spent"
            message = "Your photo analyses this month are estimated at \(spent) monthly budget (\(percentOfBudget)%)."
        }
        self.month = month.text
        estimatedCostUsd = VisionUsageBody.rounded(cost)
        monthlyBudgetUsd = budget
    }
}

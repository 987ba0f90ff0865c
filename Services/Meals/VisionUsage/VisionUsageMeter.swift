import Foundation
import Logging

/// Counts what each photo analysis cost at the provider (`vision_usage`, per user, key, UTC month and model) and tells
/// when the user's own keys have reached 80% of the monthly budget they set. Counting is best effort: a database
/// failure here is logged and never fails the analysis the user is waiting for.
struct VisionUsageMeter: Sendable {
    let store: any VisionUsageStore
    let prices: VisionPrices
    let now: @Sendable () -> Date

    /// Adds `tally` (the provider's answers to one photo of `userId`, made with `usageKey` and `model`) to the month's
    /// usage; nothing when the provider never answered.
    func record(_ tally: TokenTally, userId: UUID, usageKey: String, model: String, logger: Logger) async {
        let (answers, usage) = tally.total
        guard answers > 0 else { return }
        do {
            try await store.record(
                userId: userId, usageKey: usageKey, model: model, month: UsageMonth(containing: now()), calls: answers, usage: usage,
                at: now(), logger: logger)
        } catch {
            logger.warning("vision usage not counted", metadata: ["error": "\(String(reflecting: error))", "vision.tokens": "\(usage.totalTokens)"])
        }
    }

    /// The warning for the user's answers when their own keys' estimated cost this month has reached 80% of their
    /// budget; nil without a budget, below it, or when it cannot be read (logged).
    func warning(for userId: UUID, logger: Logger) async -> VisionUsageWarning? {
        let month = UsageMonth(containing: now())
        do {
            guard let budget = try await store.budget(userId: userId, logger: logger) else { return nil }
            let rows = try await store.rows(userId: userId, month: month, logger: logger)
            return VisionUsageWarning(cost: VisionUsageBody.ownKeyCost(of: rows, prices: prices), budget: budget, month: month)
        } catch {
            logger.warning("vision budget not checked", metadata: ["error": "\(String(reflecting: error))"])
            return nil
        }
    }
}

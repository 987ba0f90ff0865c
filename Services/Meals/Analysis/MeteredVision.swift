import Foundation
import Logging

/// Asks the provider that reads a user's photos (their own key's or the server's) and counts what each question cost,
/// succeeded or not; its failures become the answers `VisionError.apiError` gives (503, 502, or 422 for a photo
/// without food or a legible label).
struct MeteredVision: Sendable {
    /// The user's own provider or the server's.
    let analyzers: PhotoAnalyzerChooser
    /// Counts what photos cost at the provider and warns past 80% of the user's budget.
    let usage: VisionUsageMeter

    /// Runs `question` with the analyzer for `userId`; whatever the provider answered is recorded in the user's usage.
    func ask<Answer: Sendable>(
        for userId: UUID, logger: Logger, _ question: (PhotoMealAnalyzer, TokenTally) async throws -> Answer
    ) async throws -> Answer {
        let analyzer = try await analyzers.analyzer(for: userId, logger: logger)
        let tally = TokenTally()
        do {
            let answer = try await question(analyzer, tally)
            await usage.record(tally, userId: userId, usageKey: analyzer.usageKey, model: analyzer.provider.model, logger: logger)
            return answer
        } catch let error as VisionError {
            await usage.record(tally, userId: userId, usageKey: analyzer.usageKey, model: analyzer.provider.model, logger: logger)
            if error.saysProviderIsUnwell {
                logger.warning("photo analysis failed", metadata: ["reason": "\(error)"])
            } else {
                logger.info("nothing usable on the photo", metadata: ["reason": "\(error)"])
            }
            throw error.apiError
        }
    }

    /// The `usageWarning` for `userId`'s answers, once their own keys have reached 80% of their budget.
    func warning(for userId: UUID, logger: Logger) async -> VisionUsageWarning? {
        await usage.warning(for: userId, logger: logger)
    }
}

import Foundation
import Logging
import ServiceDefaults

/// Which provider analyses a user's photo: their own key when they set one (its base URL checked again first, as a name
/// may now point elsewhere), otherwise the server's provider; 503 `vision_not_configured` when there is neither.
struct PhotoAnalyzerChooser: Sendable {
    let server: PhotoMealAnalyzer?
    let vault: VisionKeyVault
    let userProviders: UserVisionProviders
    let policy: VisionBaseURLPolicy

    func analyzer(for userId: UUID, logger: Logger) async throws -> PhotoMealAnalyzer {
        guard let key = try await vault.key(of: userId, logger: logger) else {
            guard let server else { throw VisionError.notConfigured }
            return server
        }
        if case .failure(let refusal) = await policy.check(key.baseURL.absoluteString) {
            throw APIError(
                .unprocessableContent, code: "vision_base_url_refused",
                message: "The base URL of your vision key \(refusal.reason); set the key again with PUT /api/users/vision-key.")
        }
        return PhotoMealAnalyzer(
            provider: await userProviders.provider(for: key, userId: userId),
            usageKey: key.usageKey.map(\.lowercasedString) ?? VisionUsageRepository.ownKey)
    }
}

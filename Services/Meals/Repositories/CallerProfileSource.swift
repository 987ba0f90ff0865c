import Foundation
import Logging

/// The profile a meal-writing request dates and scores with (`CallerProfiles` in the service, fixed profiles in router
/// tests).
protocol CallerProfileSource: Sendable {
    /// The caller's profile; the UTC standard when none came in time. A cancelled request stops waiting at once.
    func profile(of userId: UUID, logger: Logger) async throws -> CallerProfile
}

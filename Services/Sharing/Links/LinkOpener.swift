import Foundation
import Logging
import ServiceDefaults

/// Opens a link for the public routes: the shared meal, or the refusal every public route gives alike
/// (404 for a token that never existed, 410 for an expired or revoked link or a deleted meal). Logs to the request's `logger`.
struct LinkOpener: Sendable {
    let store: any SharingStore
    let views: ViewCounter

    /// The meal behind `token`; `countingView` adds one to the link's views when it opens (the JSON view and the
    /// page do, the card and the photo do not).
    func open(_ token: String, now: Date, countingView: Bool, logger: Logger) async throws -> SharedMeal {
        guard CapabilityToken.isWellFormed(token) else { throw Self.refusal(nil) }
        if let shared = try await store.peek(token: token, now: now, logger: logger) {
            if countingView { try await views.record(token, now: now, logger: logger) }
            return shared
        }
        throw Self.refusal(try await store.status(token: token, now: now, logger: logger))
    }

    /// The error for a link that does not open with `status` (nil: no such link).
    static func refusal(_ status: LinkStatus?) -> APIError {
        switch status {
        case .expired?: APIError(.gone, code: "share_expired", message: "This shared link has expired.")
        case .revoked?: APIError(.gone, code: "share_revoked", message: "The owner stopped sharing this meal.")
        case .mealDeleted?: APIError(.gone, code: "shared_meal_deleted", message: "The shared meal was deleted.")
        case .active?, nil: APIError(.notFound, code: "share_not_found", message: "No meal is shared at this link.")
        }
    }
}

import Foundation

/// A share link as its owner sees it.
struct ShareLink: Sendable, Equatable {
    var token: String
    var linkId: UUID
    var mealId: UUID
    var userId: UUID
    var createdAt: Date
    var expiresAt: Date
    var revokedAt: Date?
    var includePhoto: Bool
    var showDisplayName: Bool
    var viewCount: Int
    var lastViewedAt: Date?
    /// The meal's title while the meal exists; nil once it was deleted.
    var mealTitle: String?
    /// The meal's calories while the meal exists.
    var mealCalories: Double?

    /// Whether the link still opens at `now`, and if not, why.
    func status(at now: Date) -> LinkStatus {
        if revokedAt != nil { return .revoked }
        if mealTitle == nil { return .mealDeleted }
        if expiresAt <= now { return .expired }
        return .active
    }
}

/// Why a link opens or not.
enum LinkStatus: String, Sendable, Codable {
    case active
    case expired
    case revoked
    case mealDeleted = "meal_deleted"
}

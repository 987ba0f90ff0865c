import EventContracts
import Foundation

/// What an open link shows: the meal as it is now, the owner's name when allowed, and the link's terms.
struct SharedMeal: Sendable {
    var token: String
    var meal: MealSnapshot
    /// The owner's display name, only when the owner allowed it.
    var displayName: String?
    var expiresAt: Date
    /// The photo's digest when the link includes a copied photo; nil otherwise.
    var photoDigest: String?
}

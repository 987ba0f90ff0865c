import Foundation

/// Everything the JSON view of an open link is made from, short of the meal itself: the meal's version names its
/// snapshot (a snapshot only ever changes with a higher version), so two reads with equal stamps answer the same.
struct SharedViewStamp: Sendable, Equatable {
    var mealId: UUID
    var mealVersion: Int
    var displayName: String?
    var expiresAt: Date
    var photoDigest: String?

    init(mealId: UUID, mealVersion: Int, displayName: String?, expiresAt: Date, photoDigest: String?) {
        self.mealId = mealId
        self.mealVersion = mealVersion
        self.displayName = displayName
        self.expiresAt = expiresAt
        self.photoDigest = photoDigest
    }

    /// The stamp of an opened link.
    init(_ shared: SharedMeal) {
        self.init(
            mealId: shared.meal.mealId, mealVersion: shared.meal.version, displayName: shared.displayName, expiresAt: shared.expiresAt,
            photoDigest: shared.photoDigest)
    }
}

import BackendKit
import EventContracts
import Foundation
import ServiceDefaults

/// `GET /api/history/:date`: the day's summary and its meals with times, nutrition and scores.
struct DayHistory: Codable, Sendable, Equatable {
    struct Meal: Codable, Sendable, Equatable {
        var mealId: UUID
        var title: String
        var mealType: String?
        var eatenAt: Date
        var isConsumed: Bool
        var edited: Bool
        var notes: String?
        var hasPhoto: Bool
        /// The signed URL of the photo's JPEG thumbnail (see `GET /api/meals`), working until `thumbnailUrlExpiresAt`;
        /// absent without a photo or for a meal last changed before events carried its photo. It answers 404 while the
        /// photo has no thumbnail (pending, or unavailable for an image the library cannot read).
        var thumbnailUrl: String?
        var thumbnailUrlExpiresAt: Date?
        var items: [MealSnapshotItem]
        var totals: NutrientTotals
        var healthScore: Int?
        var healthRating: String?
        var dietPreference: String
        var dietScore: Int
        var dietBand: String
        var dietExplanation: String

        init(_ meal: MealSnapshot, photos: PhotoURLSigner?) {
            mealId = meal.mealId
            title = meal.title
            mealType = meal.mealType
            eatenAt = meal.eatenAt
            isConsumed = meal.isConsumed
            edited = meal.edited
            notes = meal.notes
            hasPhoto = meal.hasPhoto
            let thumbnail = meal.photoId.flatMap { id in photos?.url(for: id, thumbnail: true) }
            thumbnailUrl = thumbnail?.url
            thumbnailUrlExpiresAt = thumbnail?.expiresAt
            items = meal.items
            totals = meal.totals
            healthScore = meal.healthScore
            healthRating = meal.healthRating
            dietPreference = meal.dietPreference
            dietScore = meal.dietScore
            dietBand = meal.dietBand
            dietExplanation = meal.dietExplanation
        }
    }

    var date: CalendarDate
    var summary: DayReport
    var meals: [Meal]
}

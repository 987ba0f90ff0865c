import BackendKit
import FoodData
import Foundation
import Hummingbird
import PostgresSupport
import SyncContracts

/// A meal as answered by every meal route and by `POST /api/analyze`.
struct MealBody: ResponseCodable, Equatable {
    var id: UUID
    var title: String
    var origin: String
    var description: String?
    var mealType: String?
    var captureKind: String
    var eatenAt: Date
    var localDate: String
    var isConsumed: Bool
    var consumedAt: Date?
    var notes: String?
    var edited: Bool
    var version: Int
    var items: [MealItem]
    var totals: NutrientProfile
    var healthScore: MealHealth?
    var dietScore: DietScore
    /// Phrases of the description that matched no food; they are not counted.
    var unrecognised: [String]
    var tags: [String]
    /// Whether the meal has a photo now: the same as `hasPhoto` in a day's history, the export and the meal events.
    var hasPhoto: Bool
    /// The photo's signed URL (it works without a bearer token until `photoUrlExpiresAt`; read the meal again for a
    /// fresh one); absent without a photo.
    var photoUrl: String?
    var photoUrlExpiresAt: Date?
    /// With a photo: `ready` (`thumbnailUrl` is set), `pending` (a photo stored before thumbnails; the upkeep job is
    /// making it) or `unavailable` (the photo could not be read by the image library; it is stored all the same).
    var thumbnail: String?
    /// The signed URL of the photo's JPEG thumbnail (at most 320 px on its long side, upright, without EXIF), expiring
    /// with `photoUrlExpiresAt`; absent unless `thumbnail` is `ready`.
    var thumbnailUrl: String?
    var createdAt: Date
    var updatedAt: Date
    /// When the meal was last written, as the writing client said (`modifiedAt`) or the server's time.
    var modifiedAt: Date
    /// On a write that was not applied: `stale_write_ignored` (the stored meal is newer); absent otherwise.
    var conflict: String?

    init(_ meal: MealRecord, photos: PhotoURLSigner, conflict: SyncConflictResolution? = nil) {
        id = meal.id
        title = meal.title
        origin = meal.origin.rawValue
        description = meal.description
        mealType = meal.mealType?.rawValue
        captureKind = meal.captureKind.rawValue
        eatenAt = meal.eatenAt
        localDate = meal.localDate
        isConsumed = meal.isConsumed
        consumedAt = meal.consumedAt
        notes = meal.notes
        edited = meal.edited
        tags = meal.tags
        version = meal.version
        items = meal.items
        totals = meal.totals
        healthScore = meal.health
        dietScore = meal.diet
        unrecognised = meal.unrecognised
        hasPhoto = meal.hasPhoto
        let signed = meal.photoId.map { photos.url(for: $0) }
        photoUrl = signed?.url
        photoUrlExpiresAt = signed?.expiresAt
        if let photoId = meal.photoId {
            let state = meal.thumbnail ?? .pending
            thumbnail = state.rawValue
            thumbnailUrl = state == .ready ? photos.url(for: photoId, thumbnail: true).url : nil
        }
        createdAt = meal.createdAt
        updatedAt = meal.updatedAt
        modifiedAt = meal.modified.date
        self.conflict = conflict?.rawValue
    }
}

/// A page of meals.
struct MealPageBody: ResponseCodable {
    var meals: [MealBody]
    var nextCursor: String?
}

/// What may be shown of a user's own vision key: whether one is set, where and with which model it is used, and when
/// it was set. Never the key.
struct VisionKeyStatusBody: ResponseCodable, Equatable {
    var configured: Bool
    var baseUrl: String?
    var model: String?
    var updatedAt: Date?

    /// No key is set: the server's provider analyses the user's photos.
    static let none = VisionKeyStatusBody(configured: false)

    init(configured: Bool, baseUrl: String? = nil, model: String? = nil, updatedAt: Date? = nil) {
        self.configured = configured
        self.baseUrl = baseUrl
        self.model = model
        self.updatedAt = updatedAt
    }

    init(_ row: VisionKeyRepository.Row) {
        self.init(configured: true, baseUrl: row.baseURL, model: row.model, updatedAt: row.updatedAt)
    }
}

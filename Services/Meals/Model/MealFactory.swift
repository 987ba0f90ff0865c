import Foundation
import Hummingbird
import SyncContracts
import WireJSON

/// Makes new meal records and the headers every meal answer carries.
enum MealFactory {
    /// A new meal at version 1 from a scored composition; `id` is the client's when it chose one, `modified` the
    /// write's stamp (the server's time by default).
    static func make(
        userId: UUID, origin: MealOrigin, composition: MealComposer.Composition, profile: CallerProfile, description: String?,
        mealType: MealType?, captureKind: CaptureKind, eatenAt: Date, consumed: Bool, notes: String?, unrecognised: [String],
        photoId: UUID? = nil, now: Date, id: UUID = UUID(), modified: WriteStamp? = nil, tags: [String] = []
    ) -> MealRecord {
        MealRecord(
            id: id, userId: userId, origin: origin, title: composition.title, description: description, mealType: mealType,
            captureKind: captureKind, eatenAt: eatenAt, localDate: profile.localDate(of: eatenAt),
            timeZone: profile.timeZoneName, isConsumed: consumed, consumedAt: consumed ? now : nil, notes: notes,
            edited: false, version: 1, items: composition.items, totals: composition.totals, health: composition.health,
            diet: composition.diet, unrecognised: unrecognised, photoId: photoId, tags: tags, createdAt: now, updatedAt: now,
            modified: modified ?? WriteStamp(now, tiebreak: ""))
    }

    /// `ETag` with the meal's version (send it back in `If-Match` to edit safely) and `Location`.
    static func headers(for meal: MealRecord) -> HTTPFields {
        [.eTag: "\"\(meal.version)\"", .location: "/api/meals/\(meal.id.lowercasedString)"]
    }
}

extension MealRecord {
    /// Moves the meal to another time, recomputing its date in the user's current time zone.
    mutating func move(to instant: Date, profile: CallerProfile) {
        eatenAt = instant
        localDate = profile.localDate(of: instant)
        timeZone = profile.timeZoneName
    }
}

import BackendKit
import Foundation
import Logging
import SyncContracts

/// The caller's meals and their photos as the routes read and write them (`PostgresMealStore` in the service, an
/// in-memory one in router tests). Every read and write is scoped to the owner: another user's meal is never found.
protocol MealStore: Sendable {
    /// The caller's meal.
    func find(_ id: UUID, userId: UUID, logger: Logger) async throws -> MealRecord?

    /// A page of the caller's meals, newest first (`eatenAt`, then id), after `filter.cursor`: up to `filter.limit + 1`
    /// meals, so the caller can tell whether another page follows.
    func list(userId: UUID, filter: MealListFilter, logger: Logger) async throws -> [MealRecord]

    /// The photo of the caller's meal as uploaded; throws `SealedBytesUnreadable` when its key is gone.
    func photo(mealId: UUID, userId: UUID, logger: Logger) async throws -> StoredPhoto?

    /// The photo with this id, whoever owns it (signed URLs name photos, not meals).
    func photo(id: UUID, logger: Logger) async throws -> StoredPhoto?

    /// The JPEG thumbnail of the photo with this id; nil when the photo is gone or has none.
    func thumbnail(photoId: UUID, logger: Logger) async throws -> StoredPhoto?

    /// Stores a new meal (and its photo, with its thumbnail when one can be made) with its events; answers the
    /// stored meal, which says what became of the thumbnail.
    @discardableResult
    func create(_ meal: MealRecord, photo: PhotoUpload?, logger: Logger) async throws -> MealRecord

    /// Stores a new meal under the id the client chose, unless that id is taken: then nothing is written and the
    /// answer is the stored meal, or the tombstone of the deleted one (a deleted meal is never brought back).
    func createIfAbsent(_ meal: MealRecord, logger: Logger) async throws -> CreateOutcome<MealRecord>

    /// Changes the caller's meal: 404 when it is neither theirs nor deleted; with `.ifMatch`, 409 when the version is
    /// stale; with `.lastWriteWins`, an older write (or any write of a deleted meal) is not applied but recorded as a
    /// conflict. `change` edits the record and says whether it changed anything; a change gets the next version, the
    /// write's stamp, a change number and its events; no change writes nothing.
    func update(
        _ id: UUID, userId: UUID, condition: WriteCondition, logger: Logger, _ change: @Sendable (inout MealRecord) throws -> Bool
    ) async throws -> WriteOutcome<MealRecord>

    /// Attaches, replaces or removes the caller's meal's photo: a change of the meal like any edit (same conditions,
    /// next version, change number and events). A replaced photo gets a new id, so URLs of the old one stop working.
    /// Removing a photo the meal does not have changes nothing.
    func changePhoto(_ photoChange: PhotoChange, of id: UUID, userId: UUID, condition: WriteCondition, logger: Logger) async throws
        -> WriteOutcome<MealRecord>

    /// Deletes the caller's meal and its photo, leaving a tombstone for the changes feed; a deletion always wins,
    /// and one that removes a newer edit is recorded as a conflict. Deleting a meal already deleted changes nothing;
    /// 404 when it was never theirs.
    func delete(_ id: UUID, userId: UUID, stamp: WriteStamp?, logger: Logger) async throws
}

extension MealRecord {
    /// The entity type of meals in the changes feed, tombstones and conflicts.
    static let entityType = "meal"
    static let notFound = "No such meal."
}

/// What a store's `createIfAbsent` did with a record under a client-chosen id.
enum CreateOutcome<Record: Sendable>: Sendable {
    case created(Record)
    case exists(Record)
    case deleted(SyncTombstone)
    /// Another user's record has this id.
    case idTaken
}

import BackendKit
import EventContracts
import Foundation
import Logging
import NIOCore
import ServiceDefaults
import SyncContracts
import Synchronization
import WireJSON

@testable import MealsService

/// Meals, custom meals, photos, tombstones, conflicts and change numbers in memory, for router tests: the same
/// ownership, version, last-write-wins and tombstone rules as the PostgreSQL stores (through the same
/// `WriteCondition` verdicts), with the events a write would publish recorded instead of sent.
final class InMemoryMealsStore: MealStore, CustomMealStore, MealsChangeFeed {
    /// An event a write would have put in the outbox.
    struct Event: Equatable {
        enum Kind: Equatable { case changed, deleted }
        var kind: Kind
        var mealId: UUID
        var version: Int
    }

    private struct State {
        var meals: [UUID: (seq: Int64, record: MealRecord)] = [:]
        var customMeals: [UUID: (seq: Int64, record: CustomMealRecord)] = [:]
        /// Photos by photo id, with the meal and owner they belong to.
        var photos: [UUID: (mealId: UUID, userId: UUID, photo: StoredPhoto)] = [:]
        var tombstones: [String: (userId: UUID, tombstone: SyncTombstone)] = [:]
        var conflicts: [(userId: UUID, body: SyncConflictBody<JSONValue>)] = []
        var clocks: [UUID: Int64] = [:]
        var expiredThrough: [UUID: Int64] = [:]
        /// Photos whose sealing key is gone: reading them fails as the vault's opening would.
        var unreadable: Set<UUID> = []
        var events: [Event] = []

        mutating func nextSeq(_ userId: UUID) -> Int64 {
            clocks[userId, default: 0] += 1
            return clocks[userId]!
        }
    }

    private let state = Mutex(State())
    /// Whether photos can be stored (the service's photo encryption key is set).
    let photosConfigured: Bool
    let now: @Sendable () -> Date

    init(photosConfigured: Bool = true, now: @escaping @Sendable () -> Date) {
        self.photosConfigured = photosConfigured
        self.now = now
    }

    /// The events written so far, in order.
    var events: [Event] { state.withLock { $0.events } }

    /// Which of `ids` the stored meals of `userId` name, as `ProductCopyRepository.namedInMeals` reads the meals table.
    func productsNamed(_ ids: Set<UUID>, by userId: UUID) -> Set<UUID> {
        state.withLock { state in
            Set(state.meals.values.filter { $0.record.userId == userId }.flatMap { $0.record.items.compactMap(\.productId) }).intersection(ids)
        }
    }

    /// Says that the user's deletions up to change `seq` were purged, so older cursors are expired.
    func expire(userId: UUID, through seq: Int64) {
        state.withLock { $0.expiredThrough[userId] = seq }
    }

    /// Makes the photo unreadable, as one sealed under a key since dropped from the settings.
    func loseKey(ofPhoto photoId: UUID) {
        _ = state.withLock { $0.unreadable.insert(photoId) }
    }

    /// Every meal stored, whoever owns it.
    var allMeals: [MealRecord] { state.withLock { $0.meals.values.map { $0.record } } }

    // MARK: Meals

    func find(_ id: UUID, userId: UUID, logger: Logger) async throws -> MealRecord? {
        state.withLock { $0.meals[id].map { $0.record }.flatMap { $0.userId == userId ? $0 : nil } }
    }

    func list(userId: UUID, filter: MealListFilter, logger: Logger) async throws -> [MealRecord] {
        let mine = state.withLock { $0.meals.values.map { $0.record }.filter { $0.userId == userId } }
        return
            mine
            .filter { meal in
                (filter.fromDate.map { meal.localDate >= $0 } ?? true) && (filter.toDate.map { meal.localDate <= $0 } ?? true)
                    && (filter.consumed.map { meal.isConsumed == $0 } ?? true) && (filter.mealType.map { meal.mealType == $0 } ?? true)
                    && (filter.tag.map { meal.tags.contains($0) } ?? true)
                    && (filter.cursor.map { cursor in
                        let micros = Self.micros(meal.eatenAt)
                        return micros < cursor.eatenAtMicros || (micros == cursor.eatenAtMicros && meal.id.uuidString < cursor.id.uuidString)
                    } ?? true)
            }
            .sorted { ($0.eatenAt, $0.id.uuidString) > ($1.eatenAt, $1.id.uuidString) }
            .prefix(filter.limit + 1).map { $0 }
    }

    func photo(mealId: UUID, userId: UUID, logger: Logger) async throws -> StoredPhoto? {
        let found = state.withLock { state in state.photos.first { $0.value.mealId == mealId && $0.value.userId == userId } }
        guard let (photoId, stored) = found else { return nil }
        try requireReadable(photoId)
        return stored.photo
    }

    func photo(id: UUID, logger: Logger) async throws -> StoredPhoto? {
        guard let stored = state.withLock({ $0.photos[id] }) else { return nil }
        try requireReadable(id)
        return stored.photo
    }

    /// A stored photo's thumbnail: the photo itself stands in for its JPEG rendering.
    func thumbnail(photoId: UUID, logger: Logger) async throws -> StoredPhoto? {
        guard let stored = state.withLock({ $0.photos[photoId] }) else { return nil }
        try requireReadable(photoId)
        return StoredPhoto(mediaType: "image/jpeg", bytes: stored.photo.bytes)
    }

    private func requireReadable(_ photoId: UUID) throws {
        if state.withLock({ $0.unreadable.contains(photoId) }) { throw SealedBytesUnreadable(keyId: "dropped") }
    }

    func create(_ meal: MealRecord, photo: PhotoUpload?, logger: Logger) async throws -> MealRecord {
        var meal = meal
        if photo != nil {
            try requirePhotos()
            meal.thumbnail = .ready
        }
        state.withLock { state in
            if let photo, let photoId = meal.photoId {
                state.photos[photoId] = (meal.id, meal.userId, StoredPhoto(mediaType: photo.format.mediaType, bytes: ByteBuffer(bytes: photo.bytes)))
            }
            insert(meal, into: &state)
        }
        return meal
    }

    func createIfAbsent(_ meal: MealRecord, logger: Logger) async throws -> CreateOutcome<MealRecord> {
        state.withLock { state in
            if let stored = state.meals[meal.id]?.record {
                return stored.userId == meal.userId ? .exists(stored) : .idTaken
            }
            if let tombstone = Self.tombstone(MealRecord.entityType, meal.id, of: meal.userId, in: state) { return .deleted(tombstone) }
            insert(meal, into: &state)
            return .created(meal)
        }
    }

    func update(
        _ id: UUID, userId: UUID, condition: WriteCondition, logger: Logger, _ change: @Sendable (inout MealRecord) throws -> Bool
    ) async throws -> WriteOutcome<MealRecord> {
        try state.withLock { state in try write(id, userId: userId, condition: condition, in: &state, change: change) }
    }

    func changePhoto(
        _ photoChange: PhotoChange, of id: UUID, userId: UUID, condition: WriteCondition, logger: Logger
    ) async throws -> WriteOutcome<MealRecord> {
        let newPhotoId = UUID()
        if case .replace = photoChange { try requirePhotos() }
        return try state.withLock { state in
            let outcome = try write(id, userId: userId, condition: condition, in: &state) { meal in
                switch photoChange {
                case .replace:
                    meal.photoId = newPhotoId
                    meal.thumbnail = .ready
                case .remove:
                    guard meal.hasPhoto else { return false }
                    meal.photoId = nil
                    meal.thumbnail = nil
                }
                return true
            }
            if case .written(let meal) = outcome, meal.photoId != state.photos.first(where: { $0.value.mealId == id })?.key {
                state.photos = state.photos.filter { $0.value.mealId != id }
                if case .replace(let upload) = photoChange {
                    state.photos[newPhotoId] = (id, userId, StoredPhoto(mediaType: upload.format.mediaType, bytes: ByteBuffer(bytes: upload.bytes)))
                }
            }
            return outcome
        }
    }

    func delete(_ id: UUID, userId: UUID, stamp: WriteStamp?, logger: Logger) async throws {
        try state.withLock { state in
            guard let meal = state.meals[id]?.record, meal.userId == userId else {
                guard Self.tombstone(MealRecord.entityType, id, of: userId, in: state) != nil else { throw APIError.notFound(MealRecord.notFound) }
                return
            }
            if let stamp, LastWriteWins.deletionOverridesNewerEdit(deletion: stamp, stored: meal.modified) {
                Self.recordConflict(
                    userId: userId, type: MealRecord.entityType, id: id, resolution: .deletionOverrodeEdit,
                    stored: SyncConflictSide(version: meal.version, modifiedAt: meal.modified.date, data: meal.snapshot),
                    incoming: SyncConflictSide<MealSnapshot>(version: nil, modifiedAt: stamp.date, deleted: true, data: nil), at: now(),
                    in: &state)
            }
            state.meals[id] = nil
            state.photos = state.photos.filter { $0.value.mealId != id }
            bury(MealRecord.entityType, id, version: meal.version + 1, of: userId, in: &state)
            state.events.append(Event(kind: .deleted, mealId: id, version: meal.version + 1))
        }
    }

    // MARK: Custom meals

    func find(_ id: UUID, userId: UUID, logger: Logger) async throws -> CustomMealRecord? {
        state.withLock { $0.customMeals[id].map { $0.record }.flatMap { $0.userId == userId ? $0 : nil } }
    }

    func list(userId: UUID, after: (name: String, id: UUID)?, limit: Int, logger: Logger) async throws -> [CustomMealRecord] {
        state.withLock { $0.customMeals.values.map { $0.record } }
            .filter { $0.userId == userId }
            .filter { meal in after.map { (meal.name, meal.id.uuidString) > ($0.name, $0.id.uuidString) } ?? true }
            .sorted { ($0.name, $0.id.uuidString) < ($1.name, $1.id.uuidString) }
            .prefix(limit + 1).map { $0 }
    }

    func create(_ meal: CustomMealRecord, logger: Logger) async throws {
        state.withLock { state in state.customMeals[meal.id] = (state.nextSeq(meal.userId), meal) }
    }

    func createIfAbsent(_ meal: CustomMealRecord, logger: Logger) async throws -> CreateOutcome<CustomMealRecord> {
        state.withLock { state in
            if let stored = state.customMeals[meal.id]?.record {
                return stored.userId == meal.userId ? .exists(stored) : .idTaken
            }
            if let tombstone = Self.tombstone(CustomMealRecord.entityType, meal.id, of: meal.userId, in: state) { return .deleted(tombstone) }
            state.customMeals[meal.id] = (state.nextSeq(meal.userId), meal)
            return .created(meal)
        }
    }

    func replace(
        _ id: UUID, userId: UUID, condition: WriteCondition, logger: Logger, _ change: @Sendable (inout CustomMealRecord) -> Void
    ) async throws -> WriteOutcome<CustomMealRecord> {
        try state.withLock { state in
            guard var meal = state.customMeals[id]?.record, meal.userId == userId else {
                return .deleted(
                    try missing(CustomMealRecord.entityType, id, of: userId, condition: condition, in: &state), .deletionPreserved)
            }
            switch try condition.verdict(storedVersion: meal.version, storedStamp: meal.modified, resource: "custom meal") {
            case .apply: break
            case .unchanged, .preserveDeletion: return .written(meal)
            case .ignoreStale:
                Self.recordConflict(
                    userId: userId, type: CustomMealRecord.entityType, id: id, resolution: .staleWriteIgnored,
                    stored: SyncConflictSide(
                        version: meal.version, modifiedAt: meal.modified.date,
                        data: CustomMealState(name: meal.name, mealType: meal.mealType?.rawValue, items: meal.items)),
                    incoming: condition.incomingSide(now: now()), at: now(), in: &state)
                return .kept(meal, .staleWriteIgnored)
            }
            change(&meal)
            meal.version += 1
            meal.updatedAt = now()
            meal.modified = condition.stamp(now: WriteStamp(now(), tiebreak: ""), stored: meal.modified)
            state.customMeals[id] = (state.nextSeq(userId), meal)
            return .written(meal)
        }
    }

    func delete(_ id: UUID, userId: UUID, logger: Logger) async throws {
        try state.withLock { state in
            guard let meal = state.customMeals[id]?.record, meal.userId == userId else {
                guard Self.tombstone(CustomMealRecord.entityType, id, of: userId, in: state) != nil else {
                    throw APIError.notFound(CustomMealRecord.notFound)
                }
                return
            }
            state.customMeals[id] = nil
            bury(CustomMealRecord.entityType, id, version: meal.version + 1, of: userId, in: &state)
        }
    }

    // MARK: Changes and conflicts

    func changes(userId: UUID, since: Int64, limit: Int, logger: Logger) async throws -> MealsChanges? {
        state.withLock { state in
            if since > 0, let expired = state.expiredThrough[userId], since < expired { return nil }
            return MealsChanges(
                meals: state.meals.values.filter { $0.record.userId == userId && $0.seq > since }.sorted { $0.seq < $1.seq }.prefix(limit)
                    .map { $0 },
                customMeals: state.customMeals.values.filter { $0.record.userId == userId && $0.seq > since }.sorted { $0.seq < $1.seq }
                    .prefix(limit).map { $0 },
                tombstones: state.tombstones.values.filter { $0.userId == userId && $0.tombstone.seq > since }.map { $0.tombstone }
                    .sorted { $0.seq < $1.seq }.prefix(limit).map { $0 })
        }
    }

    func conflicts(userId: UUID, limit: Int, cursor: String?, logger: Logger) async throws -> SyncConflictPage<JSONValue> {
        let after = try cursor.map { try ListCursor.decodeTime($0) }
        let mine = state.withLock { $0.conflicts.filter { $0.userId == userId }.map { $0.body } }
            .sorted { ($0.resolvedAt, $0.id.uuidString) > ($1.resolvedAt, $1.id.uuidString) }
            .filter { conflict in
                after.map { (Self.micros(conflict.resolvedAt), conflict.id.uuidString) < ($0.micros, $0.id.uuidString) } ?? true
            }
        let page = Array(mine.prefix(limit))
        return SyncConflictPage(
            conflicts: page, nextCursor: mine.count > limit ? page.last.map { ListCursor.encode(time: $0.resolvedAt, id: $0.id) } : nil)
    }

    // MARK: The shared rules

    /// The write path of `PostgresMealStore.write`: the verdict, a conflict for a stale write, the next version and
    /// change number for an applied change, and its event.
    private func write(
        _ id: UUID, userId: UUID, condition: WriteCondition, in state: inout State, change: (inout MealRecord) throws -> Bool
    ) throws -> WriteOutcome<MealRecord> {
        guard var meal = state.meals[id]?.record, meal.userId == userId else {
            return .deleted(try missing(MealRecord.entityType, id, of: userId, condition: condition, in: &state), .deletionPreserved)
        }
        switch try condition.verdict(storedVersion: meal.version, storedStamp: meal.modified, resource: "meal") {
        case .apply: break
        case .unchanged, .preserveDeletion: return .written(meal)
        case .ignoreStale:
            Self.recordConflict(
                userId: userId, type: MealRecord.entityType, id: id, resolution: .staleWriteIgnored,
                stored: SyncConflictSide(version: meal.version, modifiedAt: meal.modified.date, data: meal.snapshot),
                incoming: condition.incomingSide(now: now()), at: now(), in: &state)
            return .kept(meal, .staleWriteIgnored)
        }
        let stamp = condition.stamp(now: WriteStamp(now(), tiebreak: ""), stored: meal.modified)
        guard try change(&meal) else {
            if stamp > meal.modified {
                meal.modified = stamp
                state.meals[id]?.record = meal
            }
            return .written(meal)
        }
        meal.version += 1
        meal.updatedAt = now()
        meal.modified = stamp
        state.meals[id] = (state.nextSeq(userId), meal)
        state.events.append(Event(kind: .changed, mealId: id, version: meal.version))
        return .written(meal)
    }

    private func insert(_ meal: MealRecord, into state: inout State) {
        state.meals[meal.id] = (state.nextSeq(meal.userId), meal)
        state.events.append(Event(kind: .changed, mealId: meal.id, version: meal.version))
    }

    /// `MissingEntity.write`: a deleted entity's tombstone (with a `deletion_preserved` conflict) under last-write-wins;
    /// otherwise, or with no tombstone, 404.
    private func missing(_ type: String, _ id: UUID, of userId: UUID, condition: WriteCondition, in state: inout State) throws -> SyncTombstone {
        let notFound = type == MealRecord.entityType ? MealRecord.notFound : CustomMealRecord.notFound
        guard case .lastWriteWins = condition, let tombstone = Self.tombstone(type, id, of: userId, in: state) else {
            throw APIError.notFound(notFound)
        }
        Self.recordConflict(
            userId: userId, type: type, id: id, resolution: .deletionPreserved,
            stored: SyncConflictSide<JSONValue>(version: tombstone.version, modifiedAt: tombstone.deletedAt, deleted: true, data: nil),
            incoming: condition.incomingSide(now: now()), at: now(), in: &state)
        return tombstone
    }

    private func bury(_ type: String, _ id: UUID, version: Int, of userId: UUID, in state: inout State) {
        let tombstone = SyncTombstone(entityType: type, entityId: id.lowercasedString, version: version, deletedAt: now(), seq: state.nextSeq(userId))
        state.tombstones["\(type)/\(id.lowercasedString)"] = (userId, tombstone)
    }

    private static func tombstone(_ type: String, _ id: UUID, of userId: UUID, in state: State) -> SyncTombstone? {
        state.tombstones["\(type)/\(id.lowercasedString)"].flatMap { $0.userId == userId ? $0.tombstone : nil }
    }

    private static func recordConflict(
        userId: UUID, type: String, id: UUID, resolution: SyncConflictResolution, stored: some Encodable, incoming: some Encodable, at: Date,
        in state: inout State
    ) {
        let encoder = WireJSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        func json(_ value: some Encodable) -> JSONValue {
            (try? JSONDecoder().decode(JSONValue.self, from: encoder.encode(value))) ?? .null
        }
        state.conflicts.append(
            (
                userId,
                SyncConflictBody(
                    id: UUID(), type: type, entityId: id.lowercasedString, resolution: resolution, winner: resolution.winner,
                    stored: json(stored), incoming: json(incoming), resolvedAt: at)
            ))
    }

    private func requirePhotos() throws {
        guard photosConfigured else {
            throw APIError(
                .serviceUnavailable, code: "photos_not_configured",
                message: "This server cannot store or show photos (no photo encryption key is set up).")
        }
    }

    private static func micros(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1_000_000).rounded()) }
}

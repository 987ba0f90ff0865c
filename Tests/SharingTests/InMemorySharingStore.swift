import EventContracts
import Foundation
import Logging
import NIOCore
import ServiceDefaults
import Synchronization

@testable import SharingService

/// The sharing store in memory, for router tests: the same rules as `PostgresSharingStore` (a link opens while it is
/// neither revoked nor expired and its meal exists; the photo shows only on links that include it; the first photo
/// copy is kept), with hooks for what the event consumer would write (meals, deletions, display names).
final class InMemorySharingStore: SharingStore {
    private struct State {
        var meals: [UUID: StoredMeal] = [:]
        var displayNames: [UUID: String] = [:]
        var links: [String: ShareLink] = [:]
        var photos: [UUID: MealPhoto] = [:]
        var renders: [String: (png: ByteBuffer, mealVersion: Int)] = [:]
        /// Writes of views, in order (one per `addViews`).
        var viewWrites: [[String: PendingViews]] = []
        /// Whether `addViews` fails, as a write to an unreachable database would.
        var viewWritesFail = false
    }

    private let state = Mutex(State())
    /// Whether photos can be stored (a photo encryption key is set up).
    let photosConfigured: Bool

    init(photosConfigured: Bool = true) {
        self.photosConfigured = photosConfigured
    }

    // MARK: What the event consumer writes

    func received(_ meal: MealSnapshot) {
        state.withLock { $0.meals[meal.mealId] = StoredMeal(userId: meal.userId, snapshot: meal, deleted: false) }
    }

    func deleted(mealId: UUID) {
        state.withLock { state in
            guard let userId = state.meals[mealId]?.userId else { return }
            state.meals[mealId] = StoredMeal(userId: userId, snapshot: nil, deleted: true)
            state.photos[mealId] = nil
        }
    }

    /// Forgets a meal, as if none of its events had arrived yet.
    func forget(mealId: UUID) {
        state.withLock { $0.meals[mealId] = nil }
    }

    func named(_ userId: UUID, _ displayName: String) {
        state.withLock { $0.displayNames[userId] = displayName }
    }

    // MARK: What tests read back

    func link(_ token: String) -> ShareLink? { state.withLock { $0.links[token] } }
    var viewWrites: [[String: PendingViews]] { state.withLock { $0.viewWrites } }
    func failViewWrites(_ fail: Bool) { state.withLock { $0.viewWritesFail = fail } }
    var renderCount: Int { state.withLock { $0.renders.count } }

    // MARK: SharingStore

    func meal(_ mealId: UUID, logger: Logger) async throws -> StoredMeal? {
        state.withLock { $0.meals[mealId] }
    }

    func createLink(_ link: ShareLink, logger: Logger) async throws {
        state.withLock { $0.links[link.token] = link }
    }

    func addViews(_ views: [String: PendingViews], logger: Logger) async throws {
        try state.withLock { state in
            guard !state.viewWritesFail else { throw ViewWriteFailed() }
            state.viewWrites.append(views)
            for (token, pending) in views {
                guard var link = state.links[token] else { continue }
                link.viewCount += pending.count
                link.lastViewedAt = max(link.lastViewedAt ?? pending.lastViewedAt, pending.lastViewedAt)
                state.links[token] = link
            }
        }
    }

    func peek(token: String, now: Date, logger: Logger) async throws -> SharedMeal? {
        state.withLock { state in
            guard let link = state.links[token], link.revokedAt == nil, link.expiresAt > now,
                let meal = state.meals[link.mealId], !meal.deleted, let snapshot = meal.snapshot
            else { return nil }
            return SharedMeal(
                token: token, meal: snapshot, displayName: link.showDisplayName ? state.displayNames[link.userId] : nil,
                expiresAt: link.expiresAt, photoDigest: link.includePhoto ? state.photos[link.mealId]?.digest : nil)
        }
    }

    func stamp(token: String, now: Date, logger: Logger) async throws -> SharedViewStamp? {
        try await peek(token: token, now: now, logger: logger).map(SharedViewStamp.init)
    }

    func status(token: String, now: Date, logger: Logger) async throws -> LinkStatus? {
        state.withLock { state in state.links[token].map { Self.live($0, in: state).status(at: now) } }
    }

    func links(of userId: UUID, after cursor: LinkCursor?, limit: Int, logger: Logger) async throws -> [ShareLink] {
        state.withLock { state in
            let newestFirst = state.links.values.filter { $0.userId == userId }.sorted { Self.position($0) > Self.position($1) }
            let after = cursor.map { cursor in newestFirst.filter { Self.position($0) < (cursor.createdAtMicros, cursor.linkId.lowercasedString) } }
            return (after ?? newestFirst).prefix(limit).map { Self.live($0, in: state) }
        }
    }

    func revoke(token: String, userId: UUID, now: Date, logger: Logger) async throws -> Bool {
        state.withLock { state in
            guard var link = state.links[token], link.userId == userId else { return false }
            link.revokedAt = link.revokedAt ?? now
            state.links[token] = link
            let stillOpen = state.links.values.contains { $0.mealId == link.mealId && $0.revokedAt == nil && $0.expiresAt > now }
            if !stillOpen { state.renders = state.renders.filter { !$0.key.hasPrefix("\(link.mealId)/") } }
            return true
        }
    }

    func hasPhoto(mealId: UUID, logger: Logger) async throws -> Bool {
        state.withLock { $0.photos[mealId] != nil }
    }

    func savePhoto(_ photo: MealPhoto, mealId: UUID, userId: UUID, logger: Logger) async throws {
        guard photosConfigured else {
            throw APIError(.serviceUnavailable, code: "photos_not_configured", message: "This server cannot store or show shared photos.")
        }
        state.withLock { state in
            if state.photos[mealId] == nil { state.photos[mealId] = photo }
        }
    }

    func photo(token: String, now: Date, logger: Logger) async throws -> (MealPhoto, expiresAt: Date)? {
        state.withLock { state in
            guard let link = state.links[token], link.includePhoto, link.revokedAt == nil, link.expiresAt > now,
                state.meals[link.mealId]?.deleted == false, let photo = state.photos[link.mealId]
            else { return nil }
            return (photo, link.expiresAt)
        }
    }

    func cardPNG(mealId: UUID, sourceDigest: String, logger: Logger) async throws -> ByteBuffer? {
        state.withLock { $0.renders["\(mealId)/\(sourceDigest)"]?.png }
    }

    func saveCard(
        _ png: ByteBuffer, mealId: UUID, userId: UUID, mealVersion: Int, sourceDigest: String, renderedAt: Date, logger: Logger
    ) async throws {
        state.withLock { state in
            let ofMeal = state.renders.filter { $0.key.hasPrefix("\(mealId)/") }
            guard !ofMeal.values.contains(where: { $0.mealVersion > mealVersion }) else { return }
            for (key, render) in ofMeal where render.mealVersion < mealVersion { state.renders[key] = nil }
            if state.renders["\(mealId)/\(sourceDigest)"] == nil { state.renders["\(mealId)/\(sourceDigest)"] = (png, mealVersion) }
        }
    }

    /// The link with its meal's title and calories while the meal exists, as the owner's list shows it.
    private static func live(_ link: ShareLink, in state: State) -> ShareLink {
        var live = link
        let snapshot = state.meals[link.mealId].flatMap { $0.deleted ? nil : $0.snapshot }
        live.mealTitle = snapshot?.title
        live.mealCalories = snapshot?.totals.calories
        return live
    }

    /// A link's place in the owner's list: creation time in whole microseconds, then id (as PostgreSQL orders UUIDs).
    private static func position(_ link: ShareLink) -> (Int64, String) {
        (Int64((link.createdAt.timeIntervalSince1970 * 1_000_000).rounded()), link.linkId.lowercasedString)
    }
}

struct ViewWriteFailed: Error {}

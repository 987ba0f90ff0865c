import Foundation
import Logging
import NIOCore
import PostgresSupport

/// The sharing store in schema `sharing`, one repository per table family.
struct PostgresSharingStore: SharingStore {
    let client: PostgresPool
    let meals: MealSnapshotRepository
    let links: ShareLinkRepository
    let photos: MealPhotoRepository
    let renders: CardRenderRepository

    func meal(_ mealId: UUID, logger: Logger) async throws -> StoredMeal? {
        try await meals.meal(mealId, client: client, logger: logger)
    }

    func createLink(_ link: ShareLink, logger: Logger) async throws {
        try await links.create(link, logger: logger)
    }

    func addViews(_ views: [String: PendingViews], logger: Logger) async throws {
        try await links.addViews(views, logger: logger)
    }

    func peek(token: String, now: Date, logger: Logger) async throws -> SharedMeal? {
        try await links.peek(token: token, now: now, logger: logger)
    }

    func stamp(token: String, now: Date, logger: Logger) async throws -> SharedViewStamp? {
        try await links.stamp(token: token, now: now, logger: logger)
    }

    func status(token: String, now: Date, logger: Logger) async throws -> LinkStatus? {
        try await links.status(token: token, now: now, logger: logger)
    }

    func links(of userId: UUID, after cursor: LinkCursor?, limit: Int, logger: Logger) async throws -> [ShareLink] {
        try await links.list(userId: userId, after: cursor, limit: limit, logger: logger)
    }

    func revoke(token: String, userId: UUID, now: Date, logger: Logger) async throws -> Bool {
        try await links.revoke(token: token, userId: userId, now: now, logger: logger)
    }

    func hasPhoto(mealId: UUID, logger: Logger) async throws -> Bool {
        try await photos.exists(mealId: mealId, logger: logger)
    }

    func savePhoto(_ photo: MealPhoto, mealId: UUID, userId: UUID, logger: Logger) async throws {
        try await photos.save(photo, mealId: mealId, userId: userId, logger: logger)
    }

    func photo(token: String, now: Date, logger: Logger) async throws -> (MealPhoto, expiresAt: Date)? {
        try await photos.photo(token: token, now: now, logger: logger)
    }

    func cardPNG(mealId: UUID, sourceDigest: String, logger: Logger) async throws -> ByteBuffer? {
        try await renders.png(mealId: mealId, sourceDigest: sourceDigest, logger: logger)
    }

    func saveCard(
        _ png: ByteBuffer, mealId: UUID, userId: UUID, mealVersion: Int, sourceDigest: String, renderedAt: Date, logger: Logger
    ) async throws {
        try await renders.save(
            png, mealId: mealId, userId: userId, mealVersion: mealVersion, sourceDigest: sourceDigest, renderedAt: renderedAt, logger: logger)
    }
}

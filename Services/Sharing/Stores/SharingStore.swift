import Foundation
import Logging
import NIOCore

/// What the share routes read and write: the meals as last seen in events, the links, the photos copied for them and
/// the card renders. `PostgresSharingStore` in the service (schema `sharing`); router tests use an in-memory one.
/// The event consumer writes the meal copies and display names on its own transaction (`SharingEventHandler`), not
/// through this. Every call logs to the caller's `logger`.
protocol SharingStore: Sendable {
    /// The meal as last seen and its owner; nil when no event of it has arrived yet.
    func meal(_ mealId: UUID, logger: Logger) async throws -> StoredMeal?

    func createLink(_ link: ShareLink, logger: Logger) async throws
    /// Adds counted views to their links at once (concurrent writers never lose a count); a link gone meanwhile takes nothing.
    func addViews(_ views: [String: PendingViews], logger: Logger) async throws
    /// An open link's meal without counting a view; nil when the link does not open at `now` (see `status`).
    func peek(token: String, now: Date, logger: Logger) async throws -> SharedMeal?
    /// What an open link's JSON view is made from, without the meal's snapshot; nil when the link does not open at `now`.
    func stamp(token: String, now: Date, logger: Logger) async throws -> SharedViewStamp?
    /// Why a link does not open: nil when no such link exists (404), else expired, revoked or meal deleted (410).
    func status(token: String, now: Date, logger: Logger) async throws -> LinkStatus?
    /// The owner's links, newest first, `limit` after `cursor`.
    func links(of userId: UUID, after cursor: LinkCursor?, limit: Int, logger: Logger) async throws -> [ShareLink]
    /// Revokes the owner's link (again is fine); false when the caller owns no such link. When no other link of the
    /// meal still opens, the meal's card renders go too.
    func revoke(token: String, userId: UUID, now: Date, logger: Logger) async throws -> Bool

    /// Whether the meal's photo was copied already.
    func hasPhoto(mealId: UUID, logger: Logger) async throws -> Bool
    /// Keeps the first copy of a meal's photo; a second share of the same meal changes nothing.
    /// 503 `photos_not_configured` when photos cannot be stored.
    func savePhoto(_ photo: MealPhoto, mealId: UUID, userId: UUID, logger: Logger) async throws
    /// The photo of an open link that includes it, and when the link expires; nil otherwise.
    func photo(token: String, now: Date, logger: Logger) async throws -> (MealPhoto, expiresAt: Date)?

    /// The kept render of the card whose source has `sourceDigest`; nil when it was not rendered yet.
    func cardPNG(mealId: UUID, sourceDigest: String, logger: Logger) async throws -> ByteBuffer?
    /// Keeps a new render and drops the meal's renders of older versions; a render of an older version than one
    /// already kept is not kept.
    func saveCard(
        _ png: ByteBuffer, mealId: UUID, userId: UUID, mealVersion: Int, sourceDigest: String, renderedAt: Date, logger: Logger
    ) async throws
}

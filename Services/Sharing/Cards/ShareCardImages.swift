import Crypto
import Foundation
import Logging
import Metrics
import NIOCore
import ServiceDefaults
import WireJSON

/// The PNG share cards (`GET /shared/:token/card.png`): the SVG card of `SharedPageRenderer`, with the meal's photo
/// inlined when the link includes it, rasterised once per distinct card and kept in `card_renders`.
/// A card's key is the digest of its SVG source (the photo's digest standing for the photo), so a new meal version,
/// another display name or the photo's inclusion each make a new render, and everything else is served from the
/// table. Metric: `sharing_card_cache_hits_total` (renders count in `sharing_card_renders_total`).
struct ShareCardImages: Sendable {
    let store: any SharingStore
    let renderer: SharedPageRenderer
    let rasteriser: CardRasteriser
    let flights: RenderFlights
    let metrics: any MetricsFactory

    /// Photo types librsvg draws; a photo of another type (WebP, HEIC) is left off the card.
    static let drawablePhotoTypes: Set<String> = ["image/png", "image/jpeg"]

    /// The PNG card of an open link; throws `CardRenderFailure` when it cannot be rendered.
    func png(for shared: SharedMeal, view: SharedMealView, now: Date, logger: Logger) async throws -> ByteBuffer {
        let sourceDigest = Self.sourceDigest(card: renderer.card(view), photoDigest: shared.photoDigest)
        let meal = shared.meal
        if let png = try await store.cardPNG(mealId: meal.mealId, sourceDigest: sourceDigest, logger: logger) {
            Counter(label: "sharing_card_cache_hits_total", factory: metrics).increment()
            return png
        }
        return try await flights.run("\(meal.mealId)/\(sourceDigest)") { [self] in
            var pictured = view
            if shared.photoDigest != nil, let (photo, _) = try await store.photo(token: shared.token, now: now, logger: logger),
                Self.drawablePhotoTypes.contains(photo.mediaType)
            {
                pictured.cardPhoto = "data:\(photo.mediaType);base64,\(Data(photo.bytes.readableBytesView).base64EncodedString())"
            }
            let png = try await rasteriser.png(renderer.card(pictured))
            try await store.saveCard(
                png, mealId: meal.mealId, userId: meal.userId, mealVersion: meal.version, sourceDigest: sourceDigest, renderedAt: now,
                logger: logger)
            logger.info(
                "share card rendered",
                metadata: [
                    "meal_id": .string(meal.mealId.lowercasedString), "meal_version": .stringConvertible(meal.version),
                    "bytes": .stringConvertible(png.readableBytes),
                ])
            return png
        }
    }

    /// SHA-256 (base64url) of the card's SVG without the photo, and of the photo's digest when the card shows one.
    static func sourceDigest(card: String, photoDigest: String?) -> String {
        var hash = SHA256()
        hash.update(data: Data(card.utf8))
        hash.update(data: Data("\u{0}photo:\(photoDigest ?? "none")".utf8))
        return Base64URL.encode(hash.finalize())
    }
}

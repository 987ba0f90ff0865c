import BackendKit
import Configuration
import Foundation
import ServiceDefaults

/// How trends signs the thumbnail URLs of a day's history: with the keys meals checks them with, read once at start.
struct TrendsPhotoURLSettings: Sendable {
    /// The keys that sign photo URLs (`TRENDS_PHOTO_URL_KEY`, the same `kid:base64url(32 bytes)` as meals'
    /// `MEALS_PHOTO_URL_KEY`, and `TRENDS_PHOTO_URL_PREVIOUS_KEYS`); nil when unset: history then carries no thumbnail
    /// URLs, since meals could not verify them.
    var keys: KeyRing?
    /// How long a URL works (`TRENDS_PHOTO_URL_LIFETIME_SECONDS`, 60 to 86400, default 900).
    var lifetime: TimeInterval

    init(config: ConfigReader) throws {
        keys = try KeyRing.read(
            config: config, currentKey: "trends.photo.url.key", previousKeys: "trends.photo.url.previous.keys",
            variable: "TRENDS_PHOTO_URL_KEY", previousVariable: "TRENDS_PHOTO_URL_PREVIOUS_KEYS")
        lifetime = TimeInterval(config.int(forKey: "trends.photo.url.lifetime.seconds", default: 900))
        guard (60...86_400).contains(lifetime) else {
            throw ConfigurationError.invalid("TRENDS_PHOTO_URL_LIFETIME_SECONDS", reason: "must be between 60 and 86400")
        }
    }

    /// The signer of thumbnail URLs, or nil without a key.
    func signer(now: @escaping @Sendable () -> Date) -> PhotoURLSigner? {
        keys.map { PhotoURLSigner(keys: $0, lifetime: lifetime, now: now) }
    }
}

import Crypto
import Foundation
import ServiceDefaults
import WireJSON

/// Makes and checks the short-lived signed URLs of meal photos: `/media/photos/<photo id>?expires=<unix
/// seconds>&kid=<key id>&sig=<base64url HMAC-SHA256>`. The HMAC covers the method, the path and the expiry, under
/// the current key of `keys` (previous keys still verify, so keys rotate as the token keys do). A URL works without
/// a bearer token until it expires, so an image view can load it. Expiries are rounded up to the minute, so the URLs
/// of one photo made within a minute are the same and image caches can keep them. A photo's thumbnail has its own
/// URLs, `/media/photos/<photo id>/thumbnail?...`, signed over that path. Meals serves and checks the URLs; trends signs
/// thumbnail URLs for a day's history with the same keys (`TRENDS_PHOTO_URL_KEY` holds the same key as `MEALS_PHOTO_URL_KEY`).
public struct PhotoURLSigner: Sendable {
    /// The public path of photos, routed to the meals service by the gateway without authentication.
    public static let pathPrefix = "/media/photos/"

    public let keys: KeyRing
    /// How long a URL works (`MEALS_PHOTO_URL_LIFETIME_SECONDS` in meals, `TRENDS_PHOTO_URL_LIFETIME_SECONDS` in trends,
    /// default 15 minutes).
    public let lifetime: TimeInterval
    public let now: @Sendable () -> Date

    /// A signer under `keys` whose URLs work for `lifetime` from `now`.
    public init(keys: KeyRing, lifetime: TimeInterval, now: @escaping @Sendable () -> Date) {
        self.keys = keys
        self.lifetime = lifetime
        self.now = now
    }

    /// The signed URL of photo `photoId` (or of its thumbnail), and when it stops working.
    public func url(for photoId: UUID, thumbnail: Bool = false) -> SignedPhotoURL {
        let expires = Int64(((now().timeIntervalSince1970 + lifetime) / 60).rounded(.up) * 60)
        let path = Self.path(of: photoId, thumbnail: thumbnail)
        let signature = HMAC<SHA256>.authenticationCode(for: Self.message(path: path, expires: expires), using: keys.current)
        return SignedPhotoURL(
            url: "\(path)?expires=\(expires)&kid=\(keys.currentId)&sig=\(Base64URL.encode(signature))",
            expiresAt: Date(timeIntervalSince1970: TimeInterval(expires)))
    }

    /// What a request for photo `photoId` (or its thumbnail) with these query values may get: the photo until
    /// `expiresAt`, or a refusal.
    public func verify(photoId: UUID, thumbnail: Bool = false, expires: String?, keyId: String?, signature: String?) -> PhotoURLVerdict {
        guard let expires, let keyId, let signature else { return .unsigned }
        guard let seconds = Int64(expires), let key = keys.key(id: keyId), let mac = Base64URL.decode(signature),
            HMAC<SHA256>.isValidAuthenticationCode(
                mac, authenticating: Self.message(path: Self.path(of: photoId, thumbnail: thumbnail), expires: seconds), using: key)
        else { return .invalid }
        let expiresAt = Date(timeIntervalSince1970: TimeInterval(seconds))
        return expiresAt > now() ? .valid(expiresAt: expiresAt) : .expired
    }

    private static func path(of photoId: UUID, thumbnail: Bool) -> String {
        pathPrefix + photoId.lowercasedString + (thumbnail ? "/thumbnail" : "")
    }

    private static func message(path: String, expires: Int64) -> Data {
        Data("GET\n\(path)\n\(expires)".utf8)
    }
}

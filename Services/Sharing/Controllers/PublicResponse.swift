import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import ServiceDefaults

/// Answers of the public routes: an `ETag` from the body's digest (a matching `If-None-Match` gets 304), and a
/// `Cache-Control` whose lifetime never passes the link's expiry, so no cache serves a link after it expired.
enum PublicResponse {
    /// Longest time a cache may keep a view (JSON, page) without asking again: a revocation reaches caches within it.
    static let viewLifetime = 60
    /// Longest time a cache may keep a card or a photo.
    static let assetLifetime = 3600

    static let securityHeaders: HTTPFields = [
        .init("X-Content-Type-Options")!: "nosniff",
        .init("Referrer-Policy")!: "no-referrer",
        .init("X-Robots-Tag")!: "noindex, nofollow",
    ]

    /// The ETag digest of `body` when no digest is given: the first 16 bytes of its SHA-256, base64url.
    static func digest(of body: ByteBuffer) -> String {
        Base64URL.encode(SHA256.hash(data: body.readableBytesView).prefix(16))
    }

    /// 200 with `body`, or 304 when the client's copy is current.
    static func make(
        _ body: ByteBuffer, contentType: String, digest: String? = nil, expiresAt: Date, lifetime: Int, now: Date, request: Request,
        headers extra: HTTPFields = [:]
    ) -> Response {
        let tag = "\"\(digest ?? Self.digest(of: body))\""
        let seconds = max(0, min(lifetime, Int(expiresAt.timeIntervalSince(now).rounded(.down))))
        var headers = securityHeaders
        headers[.eTag] = tag
        headers[.cacheControl] = "public, max-age=\(seconds), must-revalidate"
        headers.append(contentsOf: extra)
        if request.hasCurrentCopy(etag: tag) {
            return Response(status: .notModified, headers: headers)
        }
        headers[.contentType] = contentType
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: body))
    }
}

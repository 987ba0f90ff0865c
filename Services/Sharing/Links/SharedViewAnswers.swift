import Foundation
import Logging
import NIOCore
import ServiceDefaults

/// The public JSON view of a link (`GET /api/share/:token`), encoded once per state of the link: a repeated view
/// costs one small indexed read (the link's `SharedViewStamp`) instead of reading and decoding the meal and encoding
/// the answer. Every view that opens is counted, by `ViewCounter`.
struct SharedViewAnswers: Sendable {
    let opener: LinkOpener
    let cache: SharedViewCache
    let addresses: PublicAddresses

    /// The encoded view of `token` at `now` and the stamp it was made from; the link's refusal when it does not open.
    func answer(_ token: String, now: Date, logger: Logger) async throws -> SharedViewCache.Entry {
        // Only a link viewed before is worth the look-up of its stamp; any other goes straight to the full read.
        if cache.contains(token), let stamp = try await opener.store.stamp(token: token, now: now, logger: logger),
            let ready = cache.view(of: token, stamp: stamp)
        {
            try await opener.views.record(token, now: now, logger: logger)
            return ready
        }
        let shared = try await opener.open(token, now: now, countingView: true, logger: logger)
        let body = ByteBuffer(bytes: try ShareController.encoder.encode(SharedMealBody(shared, addresses: addresses)))
        let entry = SharedViewCache.Entry(stamp: SharedViewStamp(shared), body: body, digest: PublicResponse.digest(of: body))
        cache.store(entry, of: token)
        return entry
    }
}

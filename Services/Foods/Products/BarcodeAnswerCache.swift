import FoodData
import Foundation
import Metrics
import NIOCore
import Synchronization

/// The answers of barcode look-ups of products offered to everyone, kept encoded for a short `lifetime`
/// (`FOODS_LOOKUP_CACHE_MILLISECONDS`, default 2,000): a scan is the service's hottest read, and a popular product is
/// scanned by many users at once, so within the lifetime its answer skips PostgreSQL, the row's decoding and the JSON
/// encoder. Only `mine` differs between callers; it is written in front of the kept fields.
///
/// A kept answer asked for in the last quarter of its lifetime is read again in the background by the one request that
/// claims it (`entry(for:)`), so a popular product's answer is renewed before it expires and no scan waits for
/// PostgreSQL because of the cache's own turnover.
///
/// Every change of a product on this replica forgets its answers at once (`AnswerForgettingProductStore`), and a
/// look-up that began before a change does not keep what it read (`generation`), so a replica answers its own writes;
/// another replica's change is seen within `lifetime`. At most `capacity` answers are kept
/// (`FOODS_LOOKUP_CACHE_ENTRIES`); past it expired ones go first, then any. Counted in
/// `foods_barcode_answers_total` by `cache` (`hit`, `miss`).
final class BarcodeAnswerCache: Sendable {
    /// A kept answer: the product it encodes and its JSON fields from the first key on (the opening brace left off,
    /// so that `mine` can be written before them).
    struct Entry: Sendable {
        var product: Product
        var fields: ByteBuffer
        var expires: ContinuousClock.Instant
        /// From when a hit renews it.
        var renewFrom: ContinuousClock.Instant
        /// Whether a request is renewing it now.
        var renewing = false
    }

    private struct State {
        var entries: [[GTIN]: Entry] = [:]
        /// Moved on by every change, so a look-up that read before it does not keep its answer.
        var generation = 0
    }

    let lifetime: Duration
    let capacity: Int
    private let state = Mutex(State())
    private let hits: Counter
    private let misses: Counter
    private let now: @Sendable () -> ContinuousClock.Instant

    /// A cache keeping answers for `lifetime` (zero keeps none), at most `capacity` of them; `now` is its clock.
    init(
        lifetime: Duration, capacity: Int, now: @escaping @Sendable () -> ContinuousClock.Instant = { .now },
        metrics: any MetricsFactory = MetricsSystem.factory
    ) {
        self.lifetime = lifetime
        self.capacity = capacity
        self.now = now
        hits = Counter(label: "foods_barcode_answers_total", dimensions: [("cache", "hit")], factory: metrics)
        misses = Counter(label: "foods_barcode_answers_total", dimensions: [("cache", "miss")], factory: metrics)
    }

    /// The kept answer for the code read as `readings`, unless it expired, and whether the caller is the one to renew it
    /// (`renew(readings:)` then `keep` or `drop`); counted as a hit or a miss.
    func entry(for readings: [GTIN]) -> (entry: Entry, renew: Bool)? {
        let now = self.now()
        let found = state.withLock { state -> (entry: Entry, renew: Bool)? in
            guard var entry = state.entries[readings], entry.expires > now else { return nil }
            guard now >= entry.renewFrom, !entry.renewing else { return (entry, false) }
            entry.renewing = true
            state.entries[readings] = entry
            return (entry, true)
        }
        (found == nil ? misses : hits).increment()
        return found
    }

    /// Lets another request renew the answer after a renewal that failed.
    func renewalFailed(for readings: [GTIN]) {
        state.withLock { state in state.entries[readings]?.renewing = false }
    }

    /// Forgets the answer for the code read as `readings` (its product is no longer the same for everyone).
    func drop(_ readings: [GTIN]) {
        _ = state.withLock { state in state.entries.removeValue(forKey: readings) }
    }

    /// The generation to hand back to `keep` after a look-up that starts now.
    var generation: Int { state.withLock { $0.generation } }

    /// Keeps `product`'s answer `fields` for the code read as `readings`, unless a product changed since `generation`.
    func keep(_ product: Product, fields: ByteBuffer, for readings: [GTIN], readAt generation: Int) {
        guard lifetime > .zero else { return }
        let now = self.now()
        let entry = Entry(product: product, fields: fields, expires: now + lifetime, renewFrom: now + lifetime * 3 / 4)
        state.withLock { state in
            guard state.generation == generation else {
                state.entries[readings]?.renewing = false
                return
            }
            if state.entries.count >= capacity, state.entries[readings] == nil {
                state.entries = state.entries.filter { $0.value.expires > now }
                if state.entries.count >= capacity, let any = state.entries.keys.first { state.entries[any] = nil }
            }
            state.entries[readings] = entry
        }
    }

    /// Forgets every answer about the product `id` or naming `gtin` among its readings (a product added under a code's
    /// preferred reading changes what the code finds).
    func forget(productId id: UUID?, gtin: GTIN?) {
        state.withLock { state in
            state.generation += 1
            state.entries = state.entries.filter { readings, entry in
                entry.product.id != id && !(gtin.map(readings.contains) ?? false) && entry.product.gtin != gtin
            }
        }
    }

    /// Forgets every answer (many products changed at once).
    func forgetAll() {
        state.withLock { state in
            state.generation += 1
            state.entries.removeAll()
        }
    }
}

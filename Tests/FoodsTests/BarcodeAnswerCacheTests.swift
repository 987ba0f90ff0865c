import FoodData
import Foundation
import Logging
import Synchronization
import Testing

@testable import FoodsService
@testable import FoodsTesting

/// Look-up answers kept a moment (`BarcodeAnswerCache`) at the router: the same answer for every caller but `mine`, this
/// replica's own changes answered at once, another replica's within the lifetime.
@Suite("Barcode look-up answers kept a moment")
struct BarcodeAnswerCacheTests {
    static let path = "/api/foods/barcode/036000291452"
    static let logger = Logger(label: "foods-cache-test")

    /// The caches' clock, moved on by the test rather than by waiting.
    final class Clock: Sendable {
        private let start = ContinuousClock.now
        private let offset = Mutex(Duration.zero)

        var now: ContinuousClock.Instant { start + offset.withLock { $0 } }

        func advance(_ duration: Duration) { offset.withLock { $0 += duration } }
    }

    /// A cache of answers kept for `lifetime` on `clock`.
    static func cache(_ lifetime: Duration, capacity: Int = 10, clock: Clock) -> BarcodeAnswerCache {
        BarcodeAnswerCache(lifetime: lifetime, capacity: capacity, now: { clock.now })
    }

    /// The answer's JSON without `mine`, to compare two callers' answers.
    static func withoutMine(_ answer: FoodsAnswer) -> NSDictionary {
        var json = answer.json
        json["mine"] = nil
        return json as NSDictionary
    }

    @Test("every caller gets the kept answer with their own mine; another replica's edit is answered once the lifetime passed")
    func keptAndExpired() async throws {
        let clock = Clock()
        let harness = FoodsRouterHarness(answers: Self.cache(.milliseconds(300), clock: clock))
        try await harness.withRoutes { client in
            let added = try await client.addProduct(barcode: "036000291452")
            let author = try await client.call(.get, Self.path)
            let other = try await client.call(.get, Self.path, as: harness.stranger)
            #expect(author.status == .ok && author.json["mine"] as? Bool == true && author.json["version"] as? Int == 1, "\(author.text)")
            #expect(other.status == .ok && other.json["mine"] as? Bool == false)
            #expect(Self.withoutMine(author) == Self.withoutMine(other), "one answer for everyone but mine")

            // Another replica's edit: straight into the store, behind this replica's back.
            let id = try #require(UUID(uuidString: added.id))
            let edit = try await harness.store.edit(
                id: id, editor: harness.owner, details: BarcodeRoutesTests.yoghurt, expectedVersion: nil, now: harness.clock.now,
                logger: Self.logger)
            #expect(edit != .notFound)
            let kept = try await client.call(.get, Self.path, as: harness.stranger)
            #expect(kept.json["version"] as? Int == 1, "within the lifetime the kept answer stands")
            clock.advance(.milliseconds(301))
            let fresh = try await client.call(.get, Self.path, as: harness.stranger)
            #expect(fresh.json["version"] as? Int == 2 && fresh.json["name"] as? String == "Naturjoghurt", "\(fresh.text)")
        }
    }

    @Test("this replica's own changes are answered at once, however long answers are kept: an edit, a hold after reports")
    func ownChangesAtOnce() async throws {
        let harness = FoodsRouterHarness(answers: Self.cache(.seconds(600), clock: Clock()))
        try await harness.withRoutes { client in
            let added = try await client.addProduct(barcode: "036000291452")
            #expect(try await client.call(.get, Self.path, as: harness.stranger).json["version"] as? Int == 1)
            let edited = try await client.call(
                .put, "/api/foods/products/\(added.id)", json: FoodsFixtures.draft(barcode: "036000291452", name: "Greek yoghurt 0 %"))
            #expect(edited.status == .ok, "\(edited.text)")
            let afterEdit = try await client.call(.get, Self.path, as: harness.stranger)
            #expect(afterEdit.json["version"] as? Int == 2 && afterEdit.json["name"] as? String == "Greek yoghurt 0 %")

            for reporter in [try harness.establishedAccount(), try harness.establishedAccount(), try harness.establishedAccount()] {
                let report = try await client.call(
                    .post, "/api/foods/products/\(added.id)/reports", json: #"{"reason":"wrong_nutrition"}"#, as: reporter)
                #expect(report.status == .accepted)
            }
            let held = try await client.call(.get, Self.path, as: UUID())
            #expect(held.status == .notFound && held.errorCode == "product_under_review", "\(held.text)")
            let author = try await client.call(.get, Self.path)
            #expect(author.status == .ok && author.json["status"] as? String == "held" && author.json["mine"] as? Bool == true)
        }
    }

    @Test("a look-up that read before a change does not keep what it read; a full cache makes room")
    func generationsAndCapacity() {
        let cache = Self.cache(.seconds(60), capacity: 2, clock: Clock())
        let product = FoodsFixtures.product(barcode: "036000291452")
        let readings = [product.gtin]
        let before = cache.generation
        cache.forget(productId: UUID(), gtin: nil)
        cache.keep(product, fields: .init(string: "}"), for: readings, readAt: before)
        #expect(cache.entry(for: readings) == nil, "read before a change: not kept")
        cache.keep(product, fields: .init(string: "}"), for: readings, readAt: cache.generation)
        #expect(cache.entry(for: readings)?.entry.product == product)
        for code in ["4006381333931", "96385074"] {
            let other = FoodsFixtures.product(barcode: code)
            cache.keep(other, fields: .init(string: "}"), for: [other.gtin], readAt: cache.generation)
            #expect(cache.entry(for: [other.gtin]) != nil)
        }
        let kept = [readings, [FoodsFixtures.product(barcode: "4006381333931").gtin], [FoodsFixtures.product(barcode: "96385074").gtin]]
        #expect(kept.filter { cache.entry(for: $0) != nil }.count == 2, "at most the capacity")
        cache.forget(productId: nil, gtin: product.gtin)
        #expect(cache.entry(for: readings) == nil)
    }

    @Test("in the last quarter of its lifetime one hit claims the renewal of an answer; the others are answered as kept")
    func renewalClaim() async throws {
        let clock = Clock()
        let cache = Self.cache(.milliseconds(400), clock: clock)
        let product = FoodsFixtures.product(barcode: "036000291452")
        cache.keep(product, fields: .init(string: "}"), for: [product.gtin], readAt: cache.generation)
        #expect(cache.entry(for: [product.gtin])?.renew == false, "young answers are not renewed")
        clock.advance(.milliseconds(310))
        #expect(cache.entry(for: [product.gtin])?.renew == true, "the first hit past half its lifetime renews it")
        #expect(cache.entry(for: [product.gtin])?.renew == false, "only one renewal at a time")
        cache.renewalFailed(for: [product.gtin])
        #expect(cache.entry(for: [product.gtin])?.renew == true, "after a failed renewal the next hit tries again")
        clock.advance(.milliseconds(100))
        #expect(cache.entry(for: [product.gtin]) == nil, "expired after its lifetime")
        cache.keep(product, fields: .init(string: "}"), for: [product.gtin], readAt: cache.generation)
        cache.drop([product.gtin])
        #expect(cache.entry(for: [product.gtin]) == nil)
    }

    @Test("a popular product's answer is renewed in the background before it expires, so a change shows without a miss")
    func renewedBeforeExpiry() async throws {
        let clock = Clock()
        let harness = FoodsRouterHarness(answers: Self.cache(.seconds(1), clock: clock))
        try await harness.withRoutes { client in
            let added = try await client.addProduct(barcode: "036000291452")
            #expect(try await client.call(.get, Self.path).json["version"] as? Int == 1)
            let id = try #require(UUID(uuidString: added.id))
            _ = try await harness.store.edit(
                id: id, editor: harness.owner, details: BarcodeRoutesTests.yoghurt, expectedVersion: nil, now: harness.clock.now,
                logger: Self.logger)
            clock.advance(.milliseconds(800))
            let claimed = try await client.call(.get, Self.path, as: harness.stranger)
            #expect(claimed.json["version"] as? Int == 1, "the hit that starts the renewal is answered as kept")
            // The renewal runs beside the answers; the clock stands still, so the first answer has not expired.
            var renewed = false
            for _ in 0..<200 where !renewed {
                try await Task.sleep(for: .milliseconds(10))
                renewed = try await client.call(.get, Self.path, as: harness.stranger).json["version"] as? Int == 2
            }
            #expect(renewed, "renewed before the first answer expired")
        }
    }
}

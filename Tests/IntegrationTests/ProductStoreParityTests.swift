import EventContracts
import FoodData
import Foundation
import TestSupport
import Testing

@testable import FoodsService
@testable import FoodsTesting

/// The PostgreSQL products store and the in-memory one fed the same seeded stream of calls and events (users adding,
/// fetching, editing, reporting, reviewing; meals logged, edited out of order, deleted; accounts registering and
/// leaving) must answer every call alike, and agree on everything they hold every few steps. A failing seed is printed
/// in every message, to be replayed with `seeds`.
@Suite("The products store: PostgreSQL and in memory alike on seeded streams", .serialized, .enabled(if: TestEnvironment.isAvailable))
struct ProductStoreParityTests {
    static let seeds: [UInt64] = [20_261_207, 50, 9_001]
    static let steps = 160
    static let logger = ProductStorePair.logger
    static let codes = ["4260123450014", "036000291452", "4006381333931", "96385074", "4260123450021", "4260123450038"].map { GTIN($0)! }
    static let rules = CommunityRules(
        reportsToHold: 2, reportsPerDay: 3, productsPerDay: 3,
        establishedAccount: EstablishedAccountRule(minimumAge: 2 * 86400, minimumLoggedMeals: 2))

    @Test("every answer alike, and everything held alike every 20 steps", arguments: seeds)
    func seededStream(seed: UInt64) async throws {
        try await ProductStorePair.run { pair in
            var stream = Stream(seed: seed)
            for step in 0..<Self.steps {
                try await stream.next(step: step, on: pair)
                if step % 20 == 19 || step == Self.steps - 1 { try await stream.compareEverything(on: pair, step: step) }
            }
            #expect(stream.products.count > 3, "seed \(seed): the stream made too few products to say much")
        }
    }

    /// One seeded stream of calls and events and what it made.
    struct Stream {
        let seed: UInt64
        var random: SplitMix64
        var now = ProductStorePair.start
        var users: [UUID] = (0..<6).map { _ in UUID() }
        var meals: [(id: UUID, user: UUID, version: Int)] = []
        var products: [ProductRef] = []

        init(seed: UInt64) {
            self.seed = seed
            random = SplitMix64(seed: seed)
            // Ids from the seed too, so that a replay makes the same ties.
            users = (0..<6).map { _ in Self.uuid(&random) }
        }

        static func uuid(_ random: inout SplitMix64) -> UUID {
            let (high, low) = (random.next(), random.next())
            return withUnsafeBytes(of: (high, low)) { UUID(uuid: $0.load(as: uuid_t.self)) }
        }

        mutating func pick<T>(_ values: [T]) -> T { values[Int(random.next() % UInt64(values.count))] }
        mutating func chance(_ percent: UInt64) -> Bool { random.next() % 100 < percent }

        func details(_ variant: Int) -> ProductDetails {
            var details = ProductStoreTests.yoghurt
            details.name = ["Skyr", "Joghurt", "Kefir", "Quark"][variant % 4]
            details.per100.calories = [68, 60, 99, 120][variant % 4]
            if variant % 3 == 0 { details.per100.protein = nil }
            return details
        }

        /// Performs one random call or event on both stores and holds their answers against each other.
        mutating func next(step: Int, on pair: ProductStorePair) async throws {
            now = now.addingTimeInterval(Double(random.next() % (4 * 3600)))
            let (now, label) = (now, "seed \(seed) step \(step)")
            let rules = ProductStoreParityTests.rules
            switch random.next() % 100 {
            case 0..<16:
                let (gtin, author, details) = (pick(ProductStoreParityTests.codes), pick(users), details(Int(random.next() % 8)))
                let created = try await pair.both { store, _ in
                    try await store.create(details, gtin: gtin, author: author, perDay: rules.productsPerDay, now: now, logger: logger)
                }
                #expect(StoreViews.creation(created.postgres) == StoreViews.creation(created.memory), "\(label) create")
                if case .created(let postgres) = created.postgres, case .created(let memory) = created.memory {
                    products.append(ProductRef((postgres, memory)))
                }
            case 16..<26:
                let (gtin, details) = (pick(ProductStoreParityTests.codes), details(Int(random.next() % 8)))
                let fetched = try await pair.agree(
                    "\(label) storeFetched",
                    { store, _ in
                        try await store.storeFetched(details, gtin: gtin, now: now, logger: logger)
                    }
                ) { ProductView($0) }
                let memory = try await pair.memory.products(gtins: [gtin], logger: logger).openFoodFacts
                if let memory, !products.contains(where: { $0.postgres == fetched.id }) { products.append(ProductRef((fetched, memory))) }
            case 26..<38 where !products.isEmpty:
                let product = pick(products)
                let (details, version) = (details(Int(random.next() % 8)), chance(50) ? nil : Int(random.next() % 4))
                let author = try await pair.postgres.product(id: product.postgres, logger: logger)?.authorId
                let editor = chance(70) ? author ?? pick(users) : pick(users)
                try await pair.agree(
                    "\(label) edit",
                    { store, side in
                        try await store.edit(
                            id: product.id(side), editor: editor, details: details, expectedVersion: version, now: now, logger: logger)
                    }
                ) { StoreViews.edit($0) }
            case 38..<56 where !products.isEmpty:
                let (product, reporter) = (pick(products), pick(users))
                let reason = pick(ProductReport.Reason.allCases)
                try await pair.agree(
                    "\(label) report",
                    { store, side in
                        try await store.report(
                            productId: product.id(side), reporter: reporter, reason: reason, note: nil, rules: rules, now: now, logger: logger)
                    }
                ) { $0 }
            case 56..<60 where !products.isEmpty:
                let (product, decision) = (pick(products), chance(60) ? ReviewDecision.reinstate : .remove)
                try await pair.agree(
                    "\(label) review",
                    { store, side in
                        try await store.review(id: product.id(side), decision: decision, now: now, logger: logger)
                    }
                ) { ProductView($0) }
            case 60..<82:
                try await logMeal(on: pair)
            case 82..<88 where !meals.isEmpty:
                let meal = pick(meals)
                let version = meal.version + Int(random.next() % 3) - 1
                try await pair.apply(
                    FoodsTestEvents.mealDeleted(meal.id, of: meal.user, version: version, reason: chance(50) ? "deleted" : "unconsumed", at: now),
                    now: now)
            case 88..<95:
                let seen = now.addingTimeInterval(-Double(random.next() % (5 * 86400)))
                try await pair.apply(FoodsTestEvents.profile(of: pick(users), at: seen), now: now)
            case 95..<97:
                let leaving = pick(users)
                try await pair.apply(FoodsTestEvents.userDeleted(leaving, at: now), now: ProductStorePair.start)
                users.removeAll { $0 == leaving }
                users.append(Self.uuid(&random))
            default:
                let gtin = pick(ProductStoreParityTests.codes)
                _ = try await pair.both { store, _ in try await store.rememberMiss(of: gtin, now: now, logger: logger) }
            }
        }

        /// A meal event: a new meal, or a copy of one of an older, the same or a newer version, naming some products.
        private mutating func logMeal(on pair: ProductStorePair) async throws {
            var meal = (id: Self.uuid(&random), user: pick(users), version: 1)
            if !meals.isEmpty && chance(50) {
                let index = Int(random.next() % UInt64(meals.count))
                let known = meals[index]
                meal = (known.id, known.user, max(1, known.version + Int(random.next() % 4) - 1))
                meals[index].version = max(known.version, meal.version)
            } else {
                meals.append(meal)
            }
            var named: [ProductRef] = []
            for product in products where chance(25) { named.append(product) }
            let (consumed, now) = (chance(80), now)
            try await pair.apply(
                { side in
                    FoodsTestEvents.meal(
                        meal.id, of: meal.user, version: meal.version, consumed: consumed, products: named.map { $0.id(side) }, at: now)
                }, now: now)
        }

        /// Holds everything the stores hold against each other: every barcode's products, every user's products and
        /// account, who logged what, the held and reported lists, every product's trust and versions, the misses.
        func compareEverything(on pair: ProductStorePair, step: Int) async throws {
            let label = "seed \(seed) after step \(step)"
            let (now, users, products) = (now, users, products)
            for gtin in ProductStoreParityTests.codes {
                try await pair.agree("\(label) barcode \(gtin.digits)", { store, _ in try await store.products(gtins: [gtin], logger: logger) }) {
                    [ProductView($0.community), ProductView($0.openFoodFacts)]
                }
                try await pair.agree(
                    "\(label) miss \(gtin.digits)",
                    { store, _ in
                        try await store.recentMiss(of: gtin, since: now.addingTimeInterval(-86400), logger: logger)
                    }
                ) { $0 }
            }
            for user in users {
                try await pair.agree("\(label) authored", { store, _ in try await store.products(authoredBy: user, limit: 100, logger: logger) }) {
                    Set($0.map { ProductView($0).description + " \($0.createdAt.timeIntervalSince1970)" })
                }
                try await pair.agree("\(label) account", { store, _ in try await store.knownAccount(user, logger: logger) }) { $0 }
                for product in products {
                    try await pair.agree(
                        "\(label) logged", { store, side in try await store.hasLogged(product.id(side), userId: user, logger: logger) }
                    ) {
                        $0
                    }
                }
            }
            try await pair.agree("\(label) held", { store, _ in try await store.heldProducts(limit: 100, logger: logger) }) { StoreViews.listed($0) }
            try await pair.agree("\(label) reported", { store, _ in try await store.reportedProducts(limit: 100, logger: logger) }) {
                StoreViews.listed($0)
            }
            var openFoodFacts: [ProductRef] = []
            for product in products where try await pair.memory.product(id: product.memory, logger: logger)?.source == .openFoodFacts {
                openFoodFacts.append(product)
            }
            let fetched = openFoodFacts
            let trust = try await pair.both { store, side in
                var found: [Product] = []
                for product in products { if let stored = try await store.product(id: product.id(side), logger: logger) { found.append(stored) } }
                let rule = ProductStoreParityTests.rules.establishedAccount
                return StoreViews.trust(
                    try await store.trust(of: found, rule: rule, now: now, logger: logger), of: products, side: side, openFoodFacts: fetched)
            }
            #expect(trust.postgres == trust.memory, "\(label) trust: PostgreSQL \(trust.postgres), memory \(trust.memory)")
            for product in products {
                try await pair.agree("\(label) versions", { store, side in try await store.versions(of: product.id(side), logger: logger) }) {
                    StoreViews.versions($0)
                }
            }
        }
    }
}

import EventContracts
import FoodData
import Foundation
import Testing

@testable import FoodsService
@testable import FoodsTesting

/// Every `ProductStore` method on the real PostgreSQL (schema itest_foods, the service's migrations), each held to what
/// a user would notice and to the in-memory store the router tests use, fed the same calls (`ProductStorePair`).
@Suite("The products store on PostgreSQL, against the in-memory one", .serialized, .enabled(if: TestEnvironment.isAvailable))
struct ProductStoreTests {
    static let start = ProductStorePair.start
    static let logger = ProductStorePair.logger
    static let yoghurt = ProductDetails(
        name: "Naturjoghurt", brand: "Alpenhof", basis: .per100g,
        per100: ProductNutrients(calories: 68, protein: 4.1, carbs: 4.7, fat: 3.5, fiber: 0, sugars: 4.7, saturatedFat: 2.3, sodium: 52),
        servingSize: .init(amount: 150, unit: "g"), allergens: [.milk], vegan: false, vegetarian: true, novaGroup: 1, nutriScore: "a")
    static let gtin = GTIN("4260123450014")!
    static let other = GTIN("036000291452")!
    static let rules = CommunityRules()

    static func named(_ name: String, calories: Double = 68) -> ProductDetails {
        var details = yoghurt
        details.name = name
        details.per100.calories = calories
        return details
    }

    /// A user's product of `gtin` by `author`, created on both stores.
    static func create(
        _ pair: ProductStorePair, _ gtin: GTIN = gtin, by author: UUID = UUID(), name: String = "Naturjoghurt", at time: Date = start
    ) async throws -> ProductRef {
        let created = try await pair.both { store, _ in
            try await store.create(named(name), gtin: gtin, author: author, perDay: 20, now: time, logger: logger)
        }
        guard case .created(let postgres) = created.postgres, case .created(let memory) = created.memory else {
            Issue.record("not created: \(created)")
            throw ProductNotCreated()
        }
        return ProductRef((postgres, memory))
    }

    struct ProductNotCreated: Error {}

    @Test("product(id:) and products(gtins:): a barcode's user product and Open Food Facts' one, for the first reading that has any")
    func readByIdAndBarcode() async throws {
        try await ProductStorePair.run { pair in
            let community = try await Self.create(pair)
            try await pair.agree(
                "fetched", { store, _ in try await store.storeFetched(Self.yoghurt, gtin: Self.gtin, now: Self.start, logger: Self.logger) },
                view: { ProductView($0) })
            let found = try await pair.agree(
                "by barcode", { store, _ in try await store.products(gtins: [Self.other, Self.gtin], logger: Self.logger) }
            ) {
                [ProductView($0.community), ProductView($0.openFoodFacts)]
            }
            #expect(found.community?.id == community.postgres && found.openFoodFacts?.source == .openFoodFacts)
            let none = try await pair.agree("unknown barcode", { store, _ in try await store.products(gtins: [Self.other], logger: Self.logger) }) {
                $0.isEmpty
            }
            #expect(none.isEmpty)
            let byId = try await pair.agree("by id", { store, side in try await store.product(id: community.id(side), logger: Self.logger) }) {
                ProductView($0)
            }
            #expect(byId?.details.name == "Naturjoghurt")
            #expect(
                try await pair.agree("unknown id", { store, _ in try await store.product(id: UUID(), logger: Self.logger) }) { ProductView($0) }
                    == nil)
        }
    }

    @Test("create: one user's product per barcode, none where Open Food Facts has it, and at most perDay an author's 24 hours")
    func create() async throws {
        try await ProductStorePair.run { pair in
            let author = UUID()
            _ = try await Self.create(pair, by: author, at: Self.start)
            let duplicate = try await pair.agree(
                "a taken barcode",
                { store, _ in
                    try await store.create(Self.named("Other"), gtin: Self.gtin, author: UUID(), perDay: 20, now: Self.start, logger: Self.logger)
                }, view: StoreViews.creation)
            #expect(StoreViews.creation(duplicate).hasPrefix("duplicate of Naturjoghurt"))
            try await pair.agree(
                "fetched", { store, _ in try await store.storeFetched(Self.yoghurt, gtin: Self.other, now: Self.start, logger: Self.logger) },
                view: { ProductView($0) })
            let fetched = try await pair.agree(
                "Open Food Facts has it",
                { store, _ in
                    try await store.create(Self.named("Mine"), gtin: Self.other, author: author, perDay: 20, now: Self.start, logger: Self.logger)
                }, view: StoreViews.creation)
            #expect(StoreViews.creation(fetched).contains("openfoodfacts"))
            _ = try await Self.create(pair, GTIN("4006381333931")!, by: author, at: Self.start.addingTimeInterval(600))
            let limited = try await pair.agree(
                "the day's products made",
                { store, _ in
                    try await store.create(
                        Self.named("Third"), gtin: GTIN("96385074")!, author: author, perDay: 2, now: Self.start.addingTimeInterval(900),
                        logger: Self.logger)
                }, view: StoreViews.creation)
            #expect(limited == .limited(retryAfter: 86400 - 900))
            let nextDay = try await pair.agree(
                "the first left the window",
                { store, _ in
                    try await store.create(
                        Self.named("Third"), gtin: GTIN("96385074")!, author: author, perDay: 2, now: Self.start.addingTimeInterval(86401),
                        logger: Self.logger)
                }, view: StoreViews.creation)
            #expect(StoreViews.creation(nextDay).hasPrefix("created"))
        }
    }

    @Test("storeFetched: new, refreshed unchanged (same version, new fetch time), changed (next version), beside a user's product")
    func storeFetched() async throws {
        try await ProductStorePair.run { pair in
            let community = try await Self.create(pair)
            let first = try await pair.agree(
                "new", { store, _ in try await store.storeFetched(Self.yoghurt, gtin: Self.gtin, now: Self.start, logger: Self.logger) },
                view: { ProductView($0) })
            #expect(first.version == 1 && first.source == .openFoodFacts && first.fetchedAt == Self.start && first.id != community.postgres)
            let later = Self.start.addingTimeInterval(3600)
            let same = try await pair.agree(
                "unchanged", { store, _ in try await store.storeFetched(Self.yoghurt, gtin: Self.gtin, now: later, logger: Self.logger) },
                view: { ProductView($0) })
            #expect(same.version == 1 && same.fetchedAt == later && same.id == first.id)
            let changed = try await pair.agree(
                "changed",
                { store, _ in
                    try await store.storeFetched(Self.named("Naturjoghurt 3.8 %", calories: 70), gtin: Self.gtin, now: later, logger: Self.logger)
                }, view: { ProductView($0) })
            #expect(changed.version == 2 && changed.details.per100.calories == 70)
            let versions = try await pair.agree(
                "versions",
                { store, side in
                    let id = try await store.products(gtins: [Self.gtin], logger: Self.logger).openFoodFacts!.id
                    return try await store.versions(of: id, logger: Self.logger)
                }, view: StoreViews.versions)
            #expect(versions.map(\.version) == [2, 1], "the unchanged refresh recorded no version")
            let stillThere = try await pair.agree(
                "the user's product", { store, side in try await store.product(id: community.id(side), logger: Self.logger) }
            ) {
                ProductView($0)
            }
            #expect(stillThere?.status == .offered)
        }
    }

    @Test("edit and versions: the author's edit is the next version; unchanged, stale, another user's and removed ones are answered as such")
    func editAndVersions() async throws {
        try await ProductStorePair.run { pair in
            let author = UUID()
            let product = try await Self.create(pair, by: author)
            let later = Self.start.addingTimeInterval(60)
            let edited = try await pair.agree(
                "edited",
                { store, side in
                    try await store.edit(
                        id: product.id(side), editor: author, details: Self.named("Joghurt"), expectedVersion: 1, now: later, logger: Self.logger)
                }, view: StoreViews.edit)
            #expect(StoreViews.edit(edited).hasPrefix("edited Joghurt") && StoreViews.edit(edited).contains("v2"))
            let unchanged = try await pair.agree(
                "unchanged",
                { store, side in
                    try await store.edit(
                        id: product.id(side), editor: author, details: Self.named("Joghurt"), expectedVersion: nil, now: later.addingTimeInterval(60),
                        logger: Self.logger)
                }, view: StoreViews.edit)
            #expect(StoreViews.edit(unchanged).contains("v2"))
            let stale = try await pair.agree(
                "stale",
                { store, side in
                    try await store.edit(
                        id: product.id(side), editor: author, details: Self.named("Old"), expectedVersion: 1, now: later, logger: Self.logger)
                }, view: StoreViews.edit)
            #expect(stale == .versionMismatch(current: 2))
            let stranger = UUID()
            let notAuthor = try await pair.agree(
                "another user",
                { store, side in
                    try await store.edit(
                        id: product.id(side), editor: stranger, details: Self.named("Mine now"), expectedVersion: nil, now: later, logger: Self.logger
                    )
                }, view: StoreViews.edit)
            #expect(notAuthor == .notAuthor)
            let versions = try await pair.agree(
                "versions", { store, side in try await store.versions(of: product.id(side), logger: Self.logger) }, view: StoreViews.versions)
            #expect(versions.map(\.version) == [2, 1] && versions.first?.details.name == "Joghurt" && versions.first?.editedAt == later)
            try await pair.agree(
                "removed", { store, side in try await store.review(id: product.id(side), decision: .remove, now: later, logger: Self.logger) }
            ) {
                ProductView($0)
            }
            let gone = try await pair.agree(
                "a removed product",
                { store, side in
                    try await store.edit(
                        id: product.id(side), editor: author, details: Self.named("Back"), expectedVersion: nil, now: later, logger: Self.logger)
                }, view: StoreViews.edit)
            #expect(gone == .notFound)
            #expect(
                try await pair.agree(
                    "no such product", { store, _ in try await store.versions(of: UUID(), logger: Self.logger) }, view: StoreViews.versions
                ).isEmpty)
        }
    }

    @Test("edit of a held product: its author edits it; a user who logged it is told it is not theirs, anyone else that there is none")
    func editHeld() async throws {
        try await ProductStorePair.run { pair in
            let author = UUID()
            let product = try await Self.create(pair, by: author)
            let regular = UUID()
            try await pair.log(product, by: regular)
            try await Self.hold(product, in: pair)
            for (editor, expected) in [(regular, ProductEdit.notAuthor), (UUID(), .notFound)] {
                let answer = try await pair.agree(
                    "held, edited by another",
                    { store, side in
                        try await store.edit(
                            id: product.id(side), editor: editor, details: Self.named("X"), expectedVersion: nil, now: Self.start, logger: Self.logger
                        )
                    }, view: StoreViews.edit)
                #expect(answer == expected)
            }
            let own = try await pair.agree(
                "held, edited by its author",
                { store, side in
                    try await store.edit(
                        id: product.id(side), editor: author, details: Self.named("Fixed"), expectedVersion: nil, now: Self.start, logger: Self.logger
                    )
                }, view: StoreViews.edit)
            #expect(StoreViews.edit(own).contains("held"))
        }
    }

    /// Holds `product` with the reports of three established accounts.
    static func hold(_ product: ProductRef, in pair: ProductStorePair, at time: Date = start) async throws {
        for _ in 0..<3 {
            let reporter = try await pair.establishedAccount(at: time)
            try await pair.agree(
                "report",
                { store, side in
                    try await store.report(
                        productId: product.id(side), reporter: reporter, reason: .wrongNutrition, note: nil, rules: rules, now: time, logger: logger)
                }
            ) { $0 }
        }
    }

    @Test("products(authoredBy:): the author's, newest first (ties by id as PostgreSQL orders them), removed ones left out, at most limit")
    func authored() async throws {
        try await ProductStorePair.run { pair in
            let author = UUID()
            let codes = ["4006381333931", "96385074", "036000291452", "4260123450014", "4260123450021"].map { GTIN($0)! }
            // Three at one instant: their order is PostgreSQL's order of their ids.
            for (index, code) in codes.enumerated() {
                _ = try await Self.create(pair, code, by: author, name: "P\(index)", at: Self.start.addingTimeInterval(index < 3 ? 0 : Double(index)))
            }
            let removed = try await pair.both { store, _ in try await store.products(gtins: [codes[4]], logger: Self.logger).community!.id }
            _ = try await pair.both { store, side in
                try await store.review(
                    id: side == .postgres ? removed.postgres : removed.memory, decision: .remove, now: Self.start, logger: Self.logger)
            }
            // Each store makes its own ids, so the two agree on the order of instants and each orders a tie by its ids.
            let listed = try await pair.both { store, _ in try await store.products(authoredBy: author, limit: 10, logger: Self.logger) }
            for products in [listed.postgres, listed.memory] {
                #expect(products.first?.details.name == "P3" && products.count == 4)
                let tied = products.dropFirst().map(\.id)
                #expect(tied == tied.sorted { InMemoryProductStore.ordered($0, $1) }, "ties by id: \(products.map(\.details.name))")
            }
            // The limit cuts each store's own order (a tie falls by that store's ids, which differ between the two).
            let limited = try await pair.both { store, _ in try await store.products(authoredBy: author, limit: 2, logger: Self.logger) }
            #expect(limited.postgres.map(\.id) == Array(listed.postgres.prefix(2).map(\.id)))
            #expect(limited.memory.map(\.id) == Array(listed.memory.prefix(2).map(\.id)))
        }
    }

    @Test("report: counted from established accounts on users' products only, once per user, at most perDay a day, held at the threshold")
    func report() async throws {
        try await ProductStorePair.run { pair in
            let author = UUID()
            let product = try await Self.create(pair, by: author)
            func report(_ reporter: UUID, _ product: ProductRef, at time: Date = Self.start, rules: CommunityRules = Self.rules) async throws
                -> ReportOutcome
            {
                try await pair.agree(
                    "report",
                    { store, side in
                        try await store.report(
                            productId: product.id(side), reporter: reporter, reason: .wrongNutrition, note: "kJ", rules: rules, now: time,
                            logger: Self.logger)
                    }
                ) { $0 }
            }
            #expect(try await report(author, product) == .ownProduct)
            let fresh = UUID()
            try await pair.apply(FoodsTestEvents.profile(of: fresh, at: Self.start))
            #expect(try await report(fresh, product) == .recorded(reports: 0, counted: false, held: false))
            #expect(try await report(fresh, product) == .recorded(reports: 0, counted: false, held: false), "a second report is the first")
            let established = [try await pair.establishedAccount(), try await pair.establishedAccount(), try await pair.establishedAccount()]
            #expect(try await report(established[0], product) == .recorded(reports: 1, counted: true, held: false))
            #expect(try await report(established[1], product) == .recorded(reports: 2, counted: true, held: false))
            #expect(try await report(established[2], product) == .recorded(reports: 3, counted: true, held: true))
            #expect(try await report(UUID(), product) == .notFound, "held: not visible to a stranger")

            try await pair.agree(
                "fetched", { store, _ in try await store.storeFetched(Self.yoghurt, gtin: Self.other, now: Self.start, logger: Self.logger) },
                view: { ProductView($0) })
            let fetched = ProductRef(
                try await pair.both { store, _ in try await store.products(gtins: [Self.other], logger: Self.logger).openFoodFacts! })
            for _ in 0..<4 {
                #expect(try await report(try await pair.establishedAccount(), fetched) == .recorded(reports: 0, counted: false, held: false))
            }

            let busy = try await pair.establishedAccount()
            var reported: [ProductRef] = []
            for (index, code) in ["4006381333931", "96385074", "4260123450021"].enumerated() {
                reported.append(try await Self.create(pair, GTIN(code)!, name: "R\(index)"))
            }
            let few = CommunityRules(reportsPerDay: 2)
            #expect(try await report(busy, reported[0], at: Self.start, rules: few) == .recorded(reports: 1, counted: true, held: false))
            #expect(
                try await report(busy, reported[1], at: Self.start.addingTimeInterval(60), rules: few)
                    == .recorded(reports: 1, counted: true, held: false))
            #expect(
                try await report(busy, reported[0], at: Self.start.addingTimeInterval(120), rules: few)
                    == .recorded(reports: 1, counted: true, held: false))
            #expect(try await report(busy, reported[2], at: Self.start.addingTimeInterval(120), rules: few) == .limited(retryAfter: 86400 - 120))
        }
    }

    @Test("heldProducts and reportedProducts: held ones by when they were held with their reports; reported ones not held, latest report first")
    func heldAndReported() async throws {
        try await ProductStorePair.run { pair in
            let first = try await Self.create(pair, Self.gtin, name: "First")
            let second = try await Self.create(pair, Self.other, name: "Second")
            try await Self.hold(second, in: pair, at: Self.start.addingTimeInterval(10))
            try await Self.hold(first, in: pair, at: Self.start.addingTimeInterval(20))
            let author = try await pair.postgres.product(id: second.postgres, logger: Self.logger)?.authorId ?? UUID()
            // The author's edit of a held product changes it, not when it was held.
            _ = try await pair.both { store, side in
                try await store.edit(
                    id: second.id(side), editor: author, details: Self.named("Second, fixed"), expectedVersion: nil,
                    now: Self.start.addingTimeInterval(30),
                    logger: Self.logger)
            }
            let held = try await pair.agree(
                "held", { store, _ in try await store.heldProducts(limit: 10, logger: Self.logger) }, view: StoreViews.listed)
            #expect(held.map(\.product.details.name) == ["Second, fixed", "First"] && held.allSatisfy { $0.reports.count == 3 })

            let third = try await Self.create(pair, GTIN("4006381333931")!, name: "Third")
            let fourth = try await Self.create(pair, GTIN("96385074")!, name: "Fourth")
            for (product, time) in [(fourth, 40.0), (third, 50.0)] {
                let reporter = UUID()
                _ = try await pair.both { store, side in
                    try await store.report(
                        productId: product.id(side), reporter: reporter, reason: .other, note: nil, rules: Self.rules,
                        now: Self.start.addingTimeInterval(time),
                        logger: Self.logger)
                }
            }
            let reported = try await pair.agree(
                "reported", { store, _ in try await store.reportedProducts(limit: 10, logger: Self.logger) }, view: StoreViews.listed)
            #expect(reported.map(\.product.details.name) == ["Third", "Fourth"] && reported.allSatisfy { $0.reports.map(\.counted) == [false] })
        }
    }

    @Test("review: reinstated (reports cleared, counted from zero again) or removed; the same decision again changes nothing; none for an unknown id")
    func review() async throws {
        try await ProductStorePair.run { pair in
            let product = try await Self.create(pair)
            try await Self.hold(product, in: pair)
            let reinstated = try await pair.agree(
                "reinstate",
                { store, side in
                    try await store.review(id: product.id(side), decision: .reinstate, now: Self.start.addingTimeInterval(60), logger: Self.logger)
                }
            ) { ProductView($0) }
            #expect(reinstated?.status == .offered && reinstated?.version == 3)
            let again = try await pair.agree(
                "again",
                { store, side in
                    try await store.review(id: product.id(side), decision: .reinstate, now: Self.start.addingTimeInterval(90), logger: Self.logger)
                }
            ) { ProductView($0) }
            #expect(again?.version == 3)
            #expect(
                try await pair.agree(
                    "reported", { store, _ in try await store.reportedProducts(limit: 10, logger: Self.logger) }, view: StoreViews.listed
                ).isEmpty)
            let removed = try await pair.agree(
                "remove",
                { store, side in
                    try await store.review(id: product.id(side), decision: .remove, now: Self.start.addingTimeInterval(120), logger: Self.logger)
                }
            ) { ProductView($0) }
            #expect(removed?.status == .removed && removed?.version == 4)
            #expect(
                try await pair.agree(
                    "unknown", { store, _ in try await store.review(id: UUID(), decision: .remove, now: Self.start, logger: Self.logger) }
                ) { ProductView($0) } == nil)
            #expect(pair.memory.published.count == 4, "added, held, reinstated, removed")
        }
    }

    @Test("search: held products only for their author and those who logged them; a user's product whose code Open Food Facts has complete left out")
    func search() async throws {
        try await ProductStorePair.run { pair in
            let author = UUID()
            let held = try await Self.create(pair, Self.gtin, by: author, name: "Skyr natur")
            _ = try await Self.create(pair, Self.other, name: "Skyr vanilla")
            try await pair.agree(
                "fetched",
                { store, _ in
                    try await store.storeFetched(Self.named("Skyr vanilla"), gtin: Self.other, now: Self.start, logger: Self.logger)
                }, view: { ProductView($0) })
            let regular = UUID()
            try await pair.log(held, by: regular)
            try await Self.hold(held, in: pair)
            for (caller, expected) in [
                (author, ["community Skyr natur", "openfoodfacts Skyr vanilla"]), (regular, ["community Skyr natur", "openfoodfacts Skyr vanilla"]),
                (UUID(), ["openfoodfacts Skyr vanilla"]),
            ] {
                let found = try await pair.agree(
                    "search", { store, _ in try await store.search("skyr", caller: caller, limit: 10, logger: Self.logger) }
                ) {
                    $0.map { "\($0.product.source.rawValue) \($0.product.details.name)" }.sorted()
                }
                #expect(found.map { "\($0.product.source.rawValue) \($0.product.details.name)" }.sorted() == expected)
                #expect(found.allSatisfy { (0...1).contains($0.relevance) })
            }
        }
    }

    @Test("hasLogged, knownAccount and trust: the meal events say who logged what and who is established; confirmations count those")
    func eventsAndTrust() async throws {
        try await ProductStorePair.run { pair in
            let author = try await pair.establishedAccount()
            let product = try await Self.create(pair, by: author)
            let beside = try await Self.create(pair, Self.other, name: "Joghurt")
            let fetched = ProductRef(
                try await pair.both { store, _ in
                    try await store.storeFetched(Self.named("Joghurt", calories: 99), gtin: Self.other, now: Self.start, logger: Self.logger)
                })

            let user = UUID()
            try await pair.apply(FoodsTestEvents.profile(of: user, at: Self.start.addingTimeInterval(-86400)))
            try await pair.apply(FoodsTestEvents.profile(of: user, at: Self.start.addingTimeInterval(-200 * 86400), version: 0))
            let mealId = UUID()
            try await pair.apply { side in FoodsTestEvents.meal(mealId, of: user, version: 2, products: [product.id(side)], at: Self.start) }
            // An older copy (not consumed) and a redelivered one change nothing.
            try await pair.apply { side in FoodsTestEvents.meal(mealId, of: user, version: 1, consumed: false, at: Self.start) }
            try await pair.apply { side in FoodsTestEvents.meal(mealId, of: user, version: 2, products: [product.id(side)], at: Self.start) }
            let account = try await pair.agree("known", { store, _ in try await store.knownAccount(user, logger: Self.logger) }) { $0 }
            #expect(account == KnownAccount(firstSeenAt: Self.start.addingTimeInterval(-200 * 86400), loggedMeals: 1), "the earliest sighting kept")
            #expect(
                try await pair.agree("logged", { store, side in try await store.hasLogged(product.id(side), userId: user, logger: Self.logger) }) {
                    $0
                })
            #expect(try await pair.agree("unknown", { store, _ in try await store.knownAccount(UUID(), logger: Self.logger) }) { $0 } == nil)

            let loose = EstablishedAccountRule(minimumAge: 3600, minimumLoggedMeals: 1)
            let refs = [product, fetched, beside]
            func trust(_ rule: EstablishedAccountRule) async throws -> [String] {
                let answers = try await pair.both { store, side in
                    let products = try await refs.asyncMap { try await store.product(id: $0.id(side), logger: Self.logger)! }
                    return StoreViews.trust(
                        try await store.trust(of: products, rule: rule, now: Self.start, logger: Self.logger), of: refs, side: side,
                        openFoodFacts: [fetched])
                }
                #expect(answers.postgres == answers.memory)
                return answers.postgres
            }
            #expect(try await trust(loose) == ["1 - -", "0 - -", "0 0 true"], "one confirmation; the user's product beside OFF's differs")
            #expect(try await trust(EstablishedAccountRule(minimumAge: 3600, minimumLoggedMeals: 2)) == ["0 - -", "0 - -", "0 0 true"])
            try await pair.log(product, by: author)
            #expect(try await trust(loose).first == "1 - -", "the author (established) does not confirm their own")

            // Unconsumed (the same version as its deletion), then deleted for good: no longer logged, and it stays so.
            try await pair.apply(FoodsTestEvents.mealDeleted(mealId, of: user, version: 3, reason: "unconsumed", at: Self.start))
            #expect(
                try await pair.agree("unconsumed", { store, side in try await store.hasLogged(product.id(side), userId: user, logger: Self.logger) })
                { $0 } == false)
            try await pair.apply(FoodsTestEvents.mealDeleted(mealId, of: user, version: 4, at: Self.start))
            try await pair.apply { side in FoodsTestEvents.meal(mealId, of: user, version: 5, products: [product.id(side)], at: Self.start) }
            #expect(
                try await pair.agree("deleted", { store, side in try await store.hasLogged(product.id(side), userId: user, logger: Self.logger) }) {
                    $0
                } == false)
            #expect(try await pair.agree("count", { store, _ in try await store.knownAccount(user, logger: Self.logger) }) { $0 }?.loggedMeals == 0)
        }
    }

    @Test("user.deleted: the user's products stay without their author (next version), their reports without their reporter, still counted")
    func userDeleted() async throws {
        try await ProductStorePair.run { pair in
            let author = try await pair.establishedAccount()
            let product = try await Self.create(pair, by: author)
            let other = try await Self.create(pair, Self.other)
            _ = try await pair.both { store, side in
                try await store.report(
                    productId: other.id(side), reporter: author, reason: .duplicate, note: nil, rules: Self.rules, now: Self.start,
                    logger: Self.logger)
            }
            try await pair.apply(FoodsTestEvents.userDeleted(author, at: Self.start))
            let released = try await pair.agree("released", { store, side in try await store.product(id: product.id(side), logger: Self.logger) }) {
                ProductView($0)
            }
            #expect(released?.authorId == nil && released?.version == 2 && released?.updatedAt == Self.start)
            #expect(try await pair.agree("forgotten", { store, _ in try await store.knownAccount(author, logger: Self.logger) }) { $0 } == nil)
            let reported = try await pair.agree(
                "reported", { store, _ in try await store.reportedProducts(limit: 10, logger: Self.logger) }, view: StoreViews.listed)
            #expect(reported.first?.reports.map(\.counted) == [true])
        }
    }

    @Test("recentMiss and rememberMiss: Open Food Facts' no is believed from when it was said, and said again moves it")
    func misses() async throws {
        try await ProductStorePair.run { pair in
            #expect(
                try await pair.agree("none", { store, _ in try await store.recentMiss(of: Self.gtin, since: Self.start, logger: Self.logger) }) { $0 }
                    == false)
            _ = try await pair.both { store, _ in try await store.rememberMiss(of: Self.gtin, now: Self.start, logger: Self.logger) }
            #expect(
                try await pair.agree("since", { store, _ in try await store.recentMiss(of: Self.gtin, since: Self.start, logger: Self.logger) }) {
                    $0
                })
            #expect(
                try await pair.agree(
                    "older", { store, _ in try await store.recentMiss(of: Self.gtin, since: Self.start.addingTimeInterval(1), logger: Self.logger) }
                ) { $0 } == false)
            _ = try await pair.both { store, _ in
                try await store.rememberMiss(of: Self.gtin, now: Self.start.addingTimeInterval(10), logger: Self.logger)
            }
            #expect(
                try await pair.agree(
                    "again", { store, _ in try await store.recentMiss(of: Self.gtin, since: Self.start.addingTimeInterval(5), logger: Self.logger) }
                ) { $0 })
        }
    }
}

extension Array {
    /// The elements transformed in order by an async `transform`.
    fileprivate func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var result: [T] = []
        for element in self { result.append(try await transform(element)) }
        return result
    }
}

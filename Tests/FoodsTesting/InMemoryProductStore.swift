import EventContracts
import FoodData
import Foundation
import Logging
import Messaging
import Synchronization

@testable import FoodsService

/// `ProductStore` in memory, for router tests, behaving as `PostgresProductStore` does on the same input (the
/// integration suites `ProductStoreTests` and `ProductStoreParityTests` feed both the same seeded operations and
/// compare them): a user's product and an Open Food Facts one per barcode at most, versions, one report per user, daily
/// limits, holds and reviews, the meal events `FoodsEventHandler` applies (`apply(_:)`), and a record of every
/// `food.product_changed` a change would publish. Orders break ties by id as PostgreSQL orders UUIDs (their bytes).
/// Search alone is not PostgreSQL's: a plain substring match over names and brands with relevance the share of the
/// query's words matched, filtered by the same visibility rules.
final class InMemoryProductStore: ProductStore {
    private struct State {
        var products: [UUID: Product] = [:]
        var heldAt: [UUID: Date] = [:]
        var versions: [UUID: [ProductVersion]] = [:]
        var reports: [UUID: [(reporter: UUID?, report: ProductReport)]] = [:]
        var misses: [GTIN: Date] = [:]
        var accounts: [UUID: KnownAccount] = [:]
        var meals: [UUID: MealState] = [:]
        /// Product id → meal id → user id, as `product_uses`.
        var uses: [UUID: [UUID: UUID]] = [:]
        var published: [FoodProductChanged] = []
    }

    private let state = Mutex(State())

    /// Every `food.product_changed` the changes so far would have published, oldest first.
    var published: [FoodProductChanged] { state.withLock { $0.published } }

    /// The barcodes remembered as unknown to Open Food Facts.
    var misses: [GTIN: Date] { state.withLock { $0.misses } }

    func product(id: UUID, logger: Logger) async throws -> Product? { state.withLock { $0.products[id] } }

    func products(gtins: [GTIN], logger: Logger) async throws -> BarcodeProducts {
        BarcodeProducts(state.withLock { Array($0.products.values) }, readings: gtins)
    }

    func create(_ details: ProductDetails, gtin: GTIN, author: UUID, perDay: Int, now: Date, logger: Logger) async throws -> ProductCreation {
        state.withLock { state in
            let today = state.products.values.filter {
                $0.authorId == author && $0.source == .community && $0.createdAt > now.addingTimeInterval(-CommunityRules.day)
            }
            if today.count >= perDay, let first = today.map(\.createdAt).min() {
                return .limited(retryAfter: first.addingTimeInterval(CommunityRules.day).timeIntervalSince(now))
            }
            if let fetched = state.products.values.first(where: { $0.gtin == gtin && $0.source == .openFoodFacts }) { return .duplicate(fetched) }
            if let existing = state.products.values.first(where: { $0.gtin == gtin && $0.source == .community }) { return .duplicate(existing) }
            let product = Product(
                id: UUID(), gtin: gtin, source: .community, authorId: author, details: details, version: 1, status: .offered, createdAt: now,
                updatedAt: now, fetchedAt: nil)
            Self.save(product, in: &state)
            return .created(product)
        }
    }

    func storeFetched(_ details: ProductDetails, gtin: GTIN, now: Date, logger: Logger) async throws -> Product {
        state.withLock { state in
            if var existing = state.products.values.first(where: { $0.gtin == gtin && $0.source == .openFoodFacts }) {
                existing.fetchedAt = now
                existing.updatedAt = now
                if existing.details != details {
                    existing.details = details
                    existing.version += 1
                    Self.save(existing, in: &state)
                } else {
                    state.products[existing.id] = existing
                }
                return existing
            }
            let product = Product(
                id: UUID(), gtin: gtin, source: .openFoodFacts, authorId: nil, details: details, version: 1, status: .offered, createdAt: now,
                updatedAt: now, fetchedAt: now)
            Self.save(product, in: &state)
            return product
        }
    }

    func edit(id: UUID, editor: UUID, details: ProductDetails, expectedVersion: Int?, now: Date, logger: Logger) async throws -> ProductEdit {
        state.withLock { state in
            guard var product = state.products[id], product.status != .removed else { return .notFound }
            guard product.authorId == editor else { return Self.isVisible(product, to: editor, in: state) ? .notAuthor : .notFound }
            if let expectedVersion, expectedVersion != product.version { return .versionMismatch(current: product.version) }
            guard product.details != details else { return .edited(product) }
            product.details = details
            product.version += 1
            product.updatedAt = now
            Self.save(product, in: &state)
            return .edited(product)
        }
    }

    func versions(of id: UUID, logger: Logger) async throws -> [ProductVersion] {
        state.withLock { ($0.versions[id] ?? []).reversed() }
    }

    func products(authoredBy author: UUID, limit: Int, logger: Logger) async throws -> [Product] {
        state.withLock { state in
            Array(
                state.products.values.filter { $0.authorId == author && $0.status != .removed }.sorted {
                    $0.createdAt != $1.createdAt ? $0.createdAt > $1.createdAt : Self.ordered($0.id, $1.id)
                }.prefix(limit))
        }
    }

    func report(
        productId: UUID, reporter: UUID, reason: ProductReport.Reason, note: String?, rules: CommunityRules, now: Date, logger: Logger
    ) async throws -> ReportOutcome {
        state.withLock { state in
            guard var product = state.products[productId], Self.isVisible(product, to: reporter, in: state) else { return .notFound }
            if product.authorId == reporter { return .ownProduct }
            var reports = state.reports[productId] ?? []
            if let earlier = reports.first(where: { $0.reporter == reporter }) {
                return .recorded(reports: reports.filter(\.report.counted).count, counted: earlier.report.counted, held: product.status == .held)
            }
            let today = state.reports.values.joined().filter {
                $0.reporter == reporter && $0.report.reportedAt > now.addingTimeInterval(-CommunityRules.day)
            }
            if today.count >= rules.reportsPerDay, let first = today.map(\.report.reportedAt).min() {
                return .limited(retryAfter: first.addingTimeInterval(CommunityRules.day).timeIntervalSince(now))
            }
            let counted = product.source == .community && rules.establishedAccount.isEstablished(state.accounts[reporter], now: now)
            reports.append((reporter, ProductReport(reason: reason, note: note, reportedAt: now, counted: counted)))
            state.reports[productId] = reports
            let count = reports.filter(\.report.counted).count
            if product.source == .community && product.status == .offered && count >= rules.reportsToHold {
                product.status = .held
                product.version += 1
                product.updatedAt = now
                Self.save(product, in: &state)
            }
            return .recorded(reports: count, counted: counted, held: product.status == .held)
        }
    }

    func heldProducts(limit: Int, logger: Logger) async throws -> [(product: Product, reports: [ProductReport])] {
        state.withLock { state in
            state.products.values.filter { $0.status == .held }.sorted { lhs, rhs in
                let (left, right) = (state.heldAt[lhs.id] ?? lhs.updatedAt, state.heldAt[rhs.id] ?? rhs.updatedAt)
                return left != right ? left < right : Self.ordered(lhs.id, rhs.id)
            }.prefix(limit).map { ($0, Self.reports(of: $0.id, in: state)) }
        }
    }

    func reportedProducts(limit: Int, logger: Logger) async throws -> [(product: Product, reports: [ProductReport])] {
        state.withLock { state in
            let reported = state.products.values.compactMap { product -> (Product, Date)? in
                guard product.status == .offered, let last = state.reports[product.id]?.map(\.report.reportedAt).max() else { return nil }
                return (product, last)
            }
            return reported.sorted { $0.1 != $1.1 ? $0.1 > $1.1 : Self.ordered($0.0.id, $1.0.id) }.prefix(limit).map {
                ($0.0, Self.reports(of: $0.0.id, in: state))
            }
        }
    }

    func review(id: UUID, decision: ReviewDecision, now: Date, logger: Logger) async throws -> Product? {
        state.withLock { state in
            guard var product = state.products[id] else { return nil }
            let status: Product.Status = decision == .reinstate ? .offered : .removed
            guard product.status != status else { return product }
            product.status = status
            product.version += 1
            product.updatedAt = now
            if decision == .reinstate { state.reports[id] = nil }
            Self.save(product, in: &state)
            return product
        }
    }

    func search(_ query: String, caller: UUID, limit: Int, logger: Logger) async throws -> [(product: Product, relevance: Double)] {
        let words = query.lowercased().split(separator: " ")
        return state.withLock { state in
            state.products.values.filter { product in
                guard product.status == .offered || (product.status == .held && Self.isVisible(product, to: caller, in: state)) else { return false }
                return
                    !(product.source == .community
                    && state.products.values.contains {
                        $0.gtin == product.gtin && $0.source == .openFoodFacts && $0.status == .offered && $0.details.per100.isComplete
                    })
            }.compactMap { product in
                let text = "\(product.details.name) \(product.details.brand ?? "")".lowercased()
                let matched = words.filter { text.contains($0) }.count
                return matched == 0 ? nil : (product, Double(matched) / Double(words.count))
            }.sorted { $0.1 > $1.1 }.prefix(limit).map { $0 }
        }
    }

    func hasLogged(_ productId: UUID, userId: UUID, logger: Logger) async throws -> Bool {
        state.withLock { $0.uses[productId]?.values.contains(userId) ?? false }
    }

    func trust(of products: [Product], rule: EstablishedAccountRule, now: Date, logger: Logger) async throws -> [UUID: ProductTrust] {
        state.withLock { state in
            var trust: [UUID: ProductTrust] = [:]
            for product in products {
                let confirmers = Set((state.uses[product.id] ?? [:]).values).filter { user in
                    user != product.authorId && rule.isEstablished(state.accounts[user], now: now)
                }
                let fetched = state.products.values.first { $0.gtin == product.gtin && $0.source == .openFoodFacts }
                trust[product.id] = ProductTrust(of: product, confirmations: confirmers.count, openFoodFacts: fetched)
            }
            return trust
        }
    }

    func knownAccount(_ userId: UUID, logger: Logger) async throws -> KnownAccount? { state.withLock { $0.accounts[userId] } }

    func recentMiss(of gtin: GTIN, since: Date, logger: Logger) async throws -> Bool {
        state.withLock { $0.misses[gtin].map { $0 >= since } ?? false }
    }

    func rememberMiss(of gtin: GTIN, now: Date, logger: Logger) async throws {
        state.withLock { $0.misses[gtin] = now }
    }

    /// Applies a consumed event as `FoodsEventHandler` does: meal events and profiles note the account, meal events move
    /// its logged meals and the products its meals name, `user.deleted` releases its products and forgets it.
    func apply(_ event: ReceivedEvent, now: Date) throws {
        let time = event.header.time
        switch event.header.type {
        case Topic.mealConsumed.rawValue: record(try event.payload(MealConsumed.self).meal, at: time)
        case Topic.mealAnalyzed.rawValue: record(try event.payload(MealAnalyzed.self).meal, at: time)
        case Topic.mealDeleted.rawValue:
            let deleted = try event.payload(MealDeleted.self)
            let meal = MealState(userId: deleted.userId, version: deleted.version, consumed: false, deleted: deleted.reason == "deleted")
            apply(meal, of: deleted.mealId, naming: [], at: time)
        case Topic.userProfileUpdated.rawValue:
            let userId = try event.payload(UserProfileUpdated.self).userId
            state.withLock { Self.noteSeen(userId, at: time, in: &$0) }
        case Topic.userDeleted.rawValue: forget(try event.payload(UserDeleted.self).userId, now: now)
        default: throw EventRejected("the foods service does not consume \(event.header.type)")
        }
    }

    private func record(_ meal: MealSnapshot, at time: Date) {
        let named = meal.isConsumed ? Set(meal.items.compactMap(\.productId)) : []
        apply(
            MealState(userId: meal.userId, version: meal.version, consumed: meal.isConsumed, deleted: false), of: meal.mealId, naming: named, at: time
        )
    }

    private func apply(_ meal: MealState, of mealId: UUID, naming named: Set<UUID>, at time: Date) {
        state.withLock { state in
            Self.noteSeen(meal.userId, at: time, in: &state)
            let stored = state.meals[mealId]
            guard meal.replaces(stored) else { return }
            state.meals[mealId] = meal
            let logged = state.accounts[meal.userId]?.loggedMeals ?? 0
            state.accounts[meal.userId]?.loggedMeals = max(0, logged + meal.loggedMealsChange(from: stored))
            for productId in Array(state.uses.keys) where !named.contains(productId) { state.uses[productId]?[mealId] = nil }
            // As `product_uses`: a meal's row for a product keeps the user it was first written with.
            for productId in named where state.uses[productId]?[mealId] == nil { state.uses[productId, default: [:]][mealId] = meal.userId }
        }
    }

    private func forget(_ userId: UUID, now: Date) {
        state.withLock { state in
            for var product in state.products.values.sorted(by: { Self.ordered($0.id, $1.id) }) where product.authorId == userId {
                product.authorId = nil
                product.version += 1
                product.updatedAt = now
                Self.save(product, in: &state)
            }
            for (productId, reports) in state.reports {
                state.reports[productId] = reports.map { $0.reporter == userId ? (nil, $0.report) : $0 }
            }
            for productId in Array(state.uses.keys) { state.uses[productId] = state.uses[productId]?.filter { $0.value != userId } }
            state.accounts[userId] = nil
            state.meals = state.meals.filter { $0.value.userId != userId }
        }
    }

    private static func noteSeen(_ userId: UUID, at time: Date, in state: inout State) {
        let seen = min(state.accounts[userId]?.firstSeenAt ?? time, time)
        state.accounts[userId] = KnownAccount(firstSeenAt: seen, loggedMeals: state.accounts[userId]?.loggedMeals ?? 0)
    }

    private static func isVisible(_ product: Product, to caller: UUID, in state: State) -> Bool {
        product.isVisible(to: caller) || (product.status == .held && (state.uses[product.id]?.values.contains(caller) ?? false))
    }

    /// A product's reports, oldest first, as PostgreSQL orders them (then by reporter, no reporter last).
    private static func reports(of productId: UUID, in state: State) -> [ProductReport] {
        (state.reports[productId] ?? []).sorted { lhs, rhs in
            if lhs.report.reportedAt != rhs.report.reportedAt { return lhs.report.reportedAt < rhs.report.reportedAt }
            switch (lhs.reporter, rhs.reporter) {
            case (let left?, let right?): return ordered(left, right)
            case (.some, nil): return true
            case (nil, _): return false
            }
        }.map(\.report)
    }

    /// Whether `lhs` sorts before `rhs` as PostgreSQL orders UUIDs: by their bytes, as their lower-case text.
    static func ordered(_ lhs: UUID, _ rhs: UUID) -> Bool { lhs.uuidString.lowercased() < rhs.uuidString.lowercased() }

    private static func save(_ product: Product, in state: inout State) {
        if product.status == .held {
            state.heldAt[product.id] = state.heldAt[product.id] ?? product.updatedAt
        } else {
            state.heldAt[product.id] = nil
        }
        state.products[product.id] = product
        state.versions[product.id, default: []].append(
            ProductVersion(version: product.version, details: product.details, editedAt: product.updatedAt))
        state.published.append(product.changedEvent)
    }
}

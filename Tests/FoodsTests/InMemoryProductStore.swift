import EventContracts
import FoodData
import Foundation
import Logging
import Synchronization

@testable import FoodsService

/// `ProductStore` in memory, for router tests: one product per barcode, versions, one report per user, holds and
/// reviews by the same rules as the Postgres one, a plain substring search over names and brands (relevance by the
/// share of the query matched) and a record of every `food.product_changed` a change would publish.
final class InMemoryProductStore: ProductStore {
    private struct State {
        var products: [UUID: Product] = [:]
        var versions: [UUID: [ProductVersion]] = [:]
        var reports: [UUID: [(reporter: UUID, report: ProductReport)]] = [:]
        var misses: [GTIN: Date] = [:]
        var published: [FoodProductChanged] = []
    }

    private let state = Mutex(State())

    /// Every `food.product_changed` the changes so far would have published, oldest first.
    var published: [FoodProductChanged] { state.withLock { $0.published } }

    /// The barcodes remembered as unknown to Open Food Facts.
    var misses: [GTIN: Date] { state.withLock { $0.misses } }

    func product(id: UUID, logger: Logger) async throws -> Product? { state.withLock { $0.products[id] } }

    func product(gtins: [GTIN], logger: Logger) async throws -> Product? {
        let products = state.withLock { Array($0.products.values) }
        return gtins.compactMap { gtin in products.first { $0.gtin == gtin } }.first
    }

    func create(_ details: ProductDetails, gtin: GTIN, author: UUID, now: Date, logger: Logger) async throws -> ProductCreation {
        state.withLock { state in
            if let existing = state.products.values.first(where: { $0.gtin == gtin }) { return .duplicate(existing) }
            let product = Product(
                id: UUID(), gtin: gtin, source: .community, authorId: author, details: details, version: 1, status: .offered, createdAt: now,
                updatedAt: now, fetchedAt: nil)
            Self.save(product, in: &state)
            return .created(product)
        }
    }

    func storeFetched(_ details: ProductDetails, gtin: GTIN, now: Date, logger: Logger) async throws -> Product {
        state.withLock { state in
            if var existing = state.products.values.first(where: { $0.gtin == gtin }) {
                guard existing.source == .openFoodFacts else { return existing }
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
            guard product.authorId == editor else { return product.isVisible(to: editor) ? .notAuthor : .notFound }
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
                state.products.values.filter { $0.authorId == author && $0.status != .removed }.sorted { $0.createdAt > $1.createdAt }.prefix(limit))
        }
    }

    func report(
        productId: UUID, reporter: UUID, reason: ProductReport.Reason, note: String?, holdAt: Int, now: Date, logger: Logger
    ) async throws -> ReportOutcome {
        state.withLock { state in
            guard var product = state.products[productId], product.isVisible(to: reporter) else { return .notFound }
            if product.authorId == reporter { return .ownProduct }
            var reports = state.reports[productId] ?? []
            if !reports.contains(where: { $0.reporter == reporter }) {
                reports.append((reporter, ProductReport(reason: reason, note: note, reportedAt: now)))
                state.reports[productId] = reports
            }
            if product.status == .offered && reports.count >= holdAt {
                product.status = .held
                product.version += 1
                product.updatedAt = now
                Self.save(product, in: &state)
            }
            return .recorded(reports: reports.count, held: product.status == .held)
        }
    }

    func heldProducts(limit: Int, logger: Logger) async throws -> [(product: Product, reports: [ProductReport])] {
        state.withLock { state in
            state.products.values.filter { $0.status == .held }.sorted { $0.updatedAt < $1.updatedAt }.prefix(limit).map { product in
                (product, (state.reports[product.id] ?? []).map(\.report))
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
            if decision == .reinstate { state.reports[id] = [] }
            Self.save(product, in: &state)
            return product
        }
    }

    func search(_ query: String, caller: UUID, limit: Int, logger: Logger) async throws -> [(product: Product, relevance: Double)] {
        let words = query.lowercased().split(separator: " ")
        return state.withLock { state in
            state.products.values.filter { $0.status == .offered || ($0.status == .held && $0.authorId == caller) }.compactMap { product in
                let text = "\(product.details.name) \(product.details.brand ?? "")".lowercased()
                let matched = words.filter { text.contains($0) }.count
                return matched == 0 ? nil : (product, Double(matched) / Double(words.count))
            }.sorted { $0.1 > $1.1 }.prefix(limit).map { $0 }
        }
    }

    func recentMiss(of gtin: GTIN, since: Date, logger: Logger) async throws -> Bool {
        state.withLock { $0.misses[gtin].map { $0 >= since } ?? false }
    }

    func rememberMiss(of gtin: GTIN, now: Date, logger: Logger) async throws {
        state.withLock { $0.misses[gtin] = now }
    }

    private static func save(_ product: Product, in state: inout State) {
        state.products[product.id] = product
        state.versions[product.id, default: []].append(
            ProductVersion(version: product.version, details: product.details, editedAt: product.updatedAt))
        state.published.append(product.changedEvent)
    }
}

import FoodData
import Foundation
import Logging

/// A `ProductStore` that forgets the kept barcode answers of every product it changes, once the change is stored:
/// what this replica wrote, its next look-up answers (`BarcodeAnswerCache`).
struct AnswerForgettingProductStore: ProductStore {
    let base: any ProductStore
    let answers: BarcodeAnswerCache

    func product(id: UUID, logger: Logger) async throws -> Product? { try await base.product(id: id, logger: logger) }

    func products(gtins: [GTIN], logger: Logger) async throws -> BarcodeProducts { try await base.products(gtins: gtins, logger: logger) }

    func create(
        _ details: ProductDetails, gtin: GTIN, author: UUID, perDay: Int, now: Date, logger: Logger
    ) async throws -> ProductCreation {
        let creation = try await base.create(details, gtin: gtin, author: author, perDay: perDay, now: now, logger: logger)
        if case .created(let product) = creation { answers.forget(productId: product.id, gtin: gtin) }
        return creation
    }

    func storeFetched(_ details: ProductDetails, gtin: GTIN, now: Date, logger: Logger) async throws -> Product {
        let product = try await base.storeFetched(details, gtin: gtin, now: now, logger: logger)
        answers.forget(productId: product.id, gtin: gtin)
        return product
    }

    func edit(
        id: UUID, editor: UUID, details: ProductDetails, expectedVersion: Int?, now: Date, logger: Logger
    ) async throws -> ProductEdit {
        let edit = try await base.edit(id: id, editor: editor, details: details, expectedVersion: expectedVersion, now: now, logger: logger)
        if case .edited(let product) = edit { answers.forget(productId: product.id, gtin: product.gtin) }
        return edit
    }

    func versions(of id: UUID, logger: Logger) async throws -> [ProductVersion] { try await base.versions(of: id, logger: logger) }

    func products(authoredBy author: UUID, limit: Int, logger: Logger) async throws -> [Product] {
        try await base.products(authoredBy: author, limit: limit, logger: logger)
    }

    func report(
        productId: UUID, reporter: UUID, reason: ProductReport.Reason, note: String?, rules: CommunityRules, now: Date, logger: Logger
    ) async throws -> ReportOutcome {
        let outcome = try await base.report(
            productId: productId, reporter: reporter, reason: reason, note: note, rules: rules, now: now, logger: logger)
        if case .recorded(_, _, held: true) = outcome { answers.forget(productId: productId, gtin: nil) }
        return outcome
    }

    func heldProducts(limit: Int, logger: Logger) async throws -> [(product: Product, reports: [ProductReport])] {
        try await base.heldProducts(limit: limit, logger: logger)
    }

    func reportedProducts(limit: Int, logger: Logger) async throws -> [(product: Product, reports: [ProductReport])] {
        try await base.reportedProducts(limit: limit, logger: logger)
    }

    func review(id: UUID, decision: ReviewDecision, now: Date, logger: Logger) async throws -> Product? {
        let product = try await base.review(id: id, decision: decision, now: now, logger: logger)
        answers.forget(productId: id, gtin: product?.gtin)
        return product
    }

    func search(_ query: String, caller: UUID, limit: Int, logger: Logger) async throws -> [(product: Product, relevance: Double)] {
        try await base.search(query, caller: caller, limit: limit, logger: logger)
    }

    func hasLogged(_ productId: UUID, userId: UUID, logger: Logger) async throws -> Bool {
        try await base.hasLogged(productId, userId: userId, logger: logger)
    }

    func trust(of products: [Product], rule: EstablishedAccountRule, now: Date, logger: Logger) async throws -> [UUID: ProductTrust] {
        try await base.trust(of: products, rule: rule, now: now, logger: logger)
    }

    func knownAccount(_ userId: UUID, logger: Logger) async throws -> KnownAccount? { try await base.knownAccount(userId, logger: logger) }

    func recentMiss(of gtin: GTIN, since: Date, logger: Logger) async throws -> Bool {
        try await base.recentMiss(of: gtin, since: since, logger: logger)
    }

    func rememberMiss(of gtin: GTIN, now: Date, logger: Logger) async throws {
        try await base.rememberMiss(of: gtin, now: now, logger: logger)
    }
}

import FoodData
import Foundation
import Logging
import Messaging
import PostgresNIO
import PostgresSupport

/// `ProductStore` on the service's schema (`ProductRepository`'s SQL). A product's row, its version and its
/// `food.product_changed` commit in one transaction; one barcode is one row, so two users adding one barcode at once
/// get one product and one refusal.
struct PostgresProductStore: ProductStore {
    let client: PostgresPool
    let repository = ProductRepository()

    func product(id: UUID, logger: Logger) async throws -> Product? {
        try await client.withConnection { connection in try await repository.product(id: id, on: connection, logger: logger) }
    }

    func product(gtins: [GTIN], logger: Logger) async throws -> Product? {
        let found = try await client.execute(ProductsByBarcodeStatement(gtins: gtins), logger: logger)
        return gtins.compactMap { gtin in found.first { $0.gtin == gtin } }.first
    }

    func create(_ details: ProductDetails, gtin: GTIN, author: UUID, now: Date, logger: Logger) async throws -> ProductCreation {
        let product = Product(
            id: UUID(), gtin: gtin, source: .community, authorId: author, details: details, version: 1, status: .offered, createdAt: now,
            updatedAt: now, fetchedAt: nil)
        return try await client.transaction(logger: logger) { connection in
            guard try await repository.insert(product, on: connection, logger: logger) else {
                // The barcode is taken (a concurrent insert waited for the other's commit, so the row is there).
                return .duplicate(try await holder(of: gtin, on: connection, logger: logger))
            }
            try await publish(product, editor: author, on: connection, logger: logger)
            return .created(product)
        }
    }

    func storeFetched(_ details: ProductDetails, gtin: GTIN, now: Date, logger: Logger) async throws -> Product {
        try await client.transaction(logger: logger) { connection in
            guard let product = try await repository.upsertFetched(details, gtin: gtin, now: now, on: connection, logger: logger) else {
                // A user's product took the barcode meanwhile: it is the answer.
                return try await holder(of: gtin, on: connection, logger: logger)
            }
            // A refresh that changed nothing keeps its version: nothing to record or publish.
            if try await !repository.hasVersion(product.version, of: product.id, on: connection, logger: logger) {
                try await publish(product, editor: nil, on: connection, logger: logger)
            }
            return product
        }
    }

    func edit(id: UUID, editor: UUID, details: ProductDetails, expectedVersion: Int?, now: Date, logger: Logger) async throws -> ProductEdit {
        try await client.transaction(logger: logger) { connection in
            guard var product = try await repository.product(id: id, forUpdate: true, on: connection, logger: logger), product.status != .removed
            else { return .notFound }
            guard product.authorId == editor else { return product.isVisible(to: editor) ? .notAuthor : .notFound }
            if let expectedVersion, expectedVersion != product.version { return .versionMismatch(current: product.version) }
            guard product.details != details else { return .edited(product) }
            product.details = details
            product.version += 1
            product.updatedAt = now
            try await repository.update(product, on: connection, logger: logger)
            try await publish(product, editor: editor, on: connection, logger: logger)
            return .edited(product)
        }
    }

    func versions(of id: UUID, logger: Logger) async throws -> [ProductVersion] {
        try await client.withConnection { connection in try await repository.versions(of: id, on: connection, logger: logger) }
    }

    func products(authoredBy author: UUID, limit: Int, logger: Logger) async throws -> [Product] {
        try await client.withConnection { connection in
            try await repository.products(authoredBy: author, limit: limit, on: connection, logger: logger)
        }
    }

    func report(
        productId: UUID, reporter: UUID, reason: ProductReport.Reason, note: String?, holdAt: Int, now: Date, logger: Logger
    ) async throws -> ReportOutcome {
        try await client.transaction(logger: logger) { connection in
            guard var product = try await repository.product(id: productId, forUpdate: true, on: connection, logger: logger),
                product.isVisible(to: reporter)
            else { return .notFound }
            if product.authorId == reporter { return .ownProduct }
            let reports = try await repository.addReport(
                to: productId, by: reporter, ProductReport(reason: reason, note: note, reportedAt: now), on: connection, logger: logger)
            if product.status == .offered && reports >= holdAt {
                product.status = .held
                product.version += 1
                product.updatedAt = now
                try await repository.update(product, on: connection, logger: logger)
                try await publish(product, editor: nil, on: connection, logger: logger)
                logger.warning(
                    "product held back after reports", metadata: ["product_id": .string(productId.lowercasedString), "reports": "\(reports)"])
            }
            return .recorded(reports: reports, held: product.status == .held)
        }
    }

    func heldProducts(limit: Int, logger: Logger) async throws -> [(product: Product, reports: [ProductReport])] {
        try await client.withConnection { connection in
            var result: [(product: Product, reports: [ProductReport])] = []
            for product in try await repository.held(limit: limit, on: connection, logger: logger) {
                result.append((product, try await repository.reports(of: product.id, on: connection, logger: logger)))
            }
            return result
        }
    }

    func review(id: UUID, decision: ReviewDecision, now: Date, logger: Logger) async throws -> Product? {
        try await client.transaction(logger: logger) { connection in
            guard var product = try await repository.product(id: id, forUpdate: true, on: connection, logger: logger) else { return nil }
            let status: Product.Status = decision == .reinstate ? .offered : .removed
            guard product.status != status else { return product }
            product.status = status
            product.version += 1
            product.updatedAt = now
            try await repository.update(product, on: connection, logger: logger)
            // Reinstated: the reports were looked at; new ones count from zero.
            if decision == .reinstate { try await repository.deleteReports(of: id, on: connection, logger: logger) }
            try await publish(product, editor: nil, on: connection, logger: logger)
            return product
        }
    }

    func search(_ query: String, caller: UUID, limit: Int, logger: Logger) async throws -> [(product: Product, relevance: Double)] {
        // A transaction, so the similarity threshold set for the search holds for it alone.
        try await client.transaction(logger: logger) { connection in
            try await repository.search(query, caller: caller, limit: limit, on: connection, logger: logger)
        }
    }

    func recentMiss(of gtin: GTIN, since: Date, logger: Logger) async throws -> Bool {
        try await client.withConnection { connection in try await repository.recentMiss(of: gtin, since: since, on: connection, logger: logger) }
    }

    func rememberMiss(of gtin: GTIN, now: Date, logger: Logger) async throws {
        try await client.withConnection { connection in try await repository.rememberMiss(of: gtin, now: now, on: connection, logger: logger) }
    }

    /// Drops `userId` from every product they added (each published again, next version), every version they made
    /// and every report they sent, in the consumer's transaction; the products and reports stay. Returns how many
    /// products lost their author.
    func forgetUser(_ userId: UUID, now: Date, on connection: PostgresConnection, logger: Logger) async throws -> Int {
        let released = try await repository.releaseProducts(of: userId, now: now, on: connection, logger: logger)
        for product in released { try await publish(product, editor: nil, on: connection, logger: logger) }
        try await repository.forgetEditor(userId, on: connection, logger: logger)
        try await repository.forgetReporter(userId, on: connection, logger: logger)
        return released.count
    }

    /// The product holding `gtin`, which a refused insert or upsert just found there.
    private func holder(of gtin: GTIN, on connection: PostgresConnection, logger: Logger) async throws -> Product {
        guard let product = try await repository.products(gtins: [gtin], on: connection, logger: logger).first else {
            throw ProductBarcodeVanished(gtin: gtin)
        }
        return product
    }

    /// Records the product's current version and appends its `food.product_changed`.
    private func publish(_ product: Product, editor: UUID?, on connection: PostgresConnection, logger: Logger) async throws {
        try await repository.recordVersion(of: product, editor: editor, on: connection, logger: logger)
        try await Outbox.append(product.changedEnvelope, on: connection, logger: logger)
    }
}

/// The product that held a barcode when an insert was refused was gone when read (removed in between): never a
/// client's doing.
struct ProductBarcodeVanished: Error, CustomStringConvertible {
    var gtin: GTIN
    var description: String { "the product holding barcode \(gtin.digits) was gone when read" }
}

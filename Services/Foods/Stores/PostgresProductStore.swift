import FoodData
import Foundation
import Logging
import Messaging
import PostgresNIO
import PostgresSupport

/// `ProductStore` on the service's schema (`ProductRepository`'s and `KnownAccountRepository`'s SQL). A product's row,
/// its version and its `food.product_changed` commit in one transaction; a barcode has one row per source, so two
/// users adding one barcode at once get one product and one refusal. A user's daily limits are counted under a lock of
/// theirs, so two of their requests at once count each other.
struct PostgresProductStore: ProductStore {
    let client: PostgresPool
    let repository = ProductRepository()
    let accounts = KnownAccountRepository()

    func product(id: UUID, logger: Logger) async throws -> Product? {
        try await client.withConnection { connection in try await repository.product(id: id, on: connection, logger: logger) }
    }

    func products(gtins: [GTIN], logger: Logger) async throws -> BarcodeProducts {
        BarcodeProducts(try await client.execute(ProductsByBarcodeStatement(gtins: gtins), logger: logger), readings: gtins)
    }

    func create(
        _ details: ProductDetails, gtin: GTIN, author: UUID, perDay: Int, now: Date, logger: Logger
    ) async throws -> ProductCreation {
        let product = Product(
            id: UUID(), gtin: gtin, source: .community, authorId: author, details: details, version: 1, status: .offered, createdAt: now,
            updatedAt: now, fetchedAt: nil)
        return try await client.transaction(logger: logger) { connection in
            try await repository.lockLimits(of: author, on: connection, logger: logger)
            let today = try await repository.creations(by: author, since: now.addingTimeInterval(-CommunityRules.day), on: connection, logger: logger)
            if today.count >= perDay, let first = today.first {
                return .limited(retryAfter: first.addingTimeInterval(CommunityRules.day).timeIntervalSince(now))
            }
            if let fetched = try await repository.openFoodFactsProducts(of: [gtin], on: connection, logger: logger).first {
                return .duplicate(fetched)
            }
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
            let product = try await repository.upsertFetched(details, gtin: gtin, now: now, on: connection, logger: logger)
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
            guard product.authorId == editor else {
                return try await isVisible(product, to: editor, on: connection, logger: logger) ? .notAuthor : .notFound
            }
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
        productId: UUID, reporter: UUID, reason: ProductReport.Reason, note: String?, rules: CommunityRules, now: Date, logger: Logger
    ) async throws -> ReportOutcome {
        try await client.transaction(logger: logger) { connection in
            try await repository.lockLimits(of: reporter, on: connection, logger: logger)
            guard var product = try await repository.product(id: productId, forUpdate: true, on: connection, logger: logger),
                try await isVisible(product, to: reporter, on: connection, logger: logger)
            else { return .notFound }
            if product.authorId == reporter { return .ownProduct }
            if let earlier = try await repository.report(of: productId, by: reporter, on: connection, logger: logger) {
                let reports = try await repository.countedReports(of: productId, on: connection, logger: logger)
                return .recorded(reports: reports, counted: earlier.counted, held: product.status == .held)
            }
            let today = try await repository.reports(by: reporter, since: now.addingTimeInterval(-CommunityRules.day), on: connection, logger: logger)
            if today.count >= rules.reportsPerDay, let first = today.first {
                return .limited(retryAfter: first.addingTimeInterval(CommunityRules.day).timeIntervalSince(now))
            }
            let account = try await accounts.knownAccount(reporter, on: connection, logger: logger)
            let counted = product.source == .community && rules.establishedAccount.isEstablished(account, now: now)
            try await repository.addReport(
                to: productId, by: reporter, ProductReport(reason: reason, note: note, reportedAt: now, counted: counted), on: connection,
                logger: logger)
            let reports = try await repository.countedReports(of: productId, on: connection, logger: logger)
            if product.source == .community && product.status == .offered && reports >= rules.reportsToHold {
                product.status = .held
                product.version += 1
                product.updatedAt = now
                try await repository.update(product, on: connection, logger: logger)
                try await publish(product, editor: nil, on: connection, logger: logger)
                logger.warning(
                    "product held back after reports", metadata: ["product_id": .string(productId.lowercasedString), "reports": "\(reports)"])
            }
            return .recorded(reports: reports, counted: counted, held: product.status == .held)
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

    func reportedProducts(limit: Int, logger: Logger) async throws -> [(product: Product, reports: [ProductReport])] {
        try await client.withConnection { connection in
            var result: [(product: Product, reports: [ProductReport])] = []
            for product in try await repository.reported(limit: limit, on: connection, logger: logger) {
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

    func hasLogged(_ productId: UUID, userId: UUID, logger: Logger) async throws -> Bool {
        try await client.withConnection { connection in
            try await repository.hasLogged(productId, userId: userId, on: connection, logger: logger)
        }
    }

    func trust(of products: [Product], rule: EstablishedAccountRule, now: Date, logger: Logger) async throws -> [UUID: ProductTrust] {
        guard !products.isEmpty else { return [:] }
        return try await client.withConnection { connection in
            let confirmations = try await repository.confirmations(of: products.map(\.id), rule: rule, now: now, on: connection, logger: logger)
            let community = products.filter { $0.source == .community }.map(\.gtin)
            let fetched = community.isEmpty ? [] : try await repository.openFoodFactsProducts(of: community, on: connection, logger: logger)
            return Dictionary(
                products.map { product in
                    let sibling = fetched.first { $0.gtin == product.gtin }
                    return (product.id, ProductTrust(of: product, confirmations: confirmations[product.id] ?? 0, openFoodFacts: sibling))
                }, uniquingKeysWith: { first, _ in first })
        }
    }

    func knownAccount(_ userId: UUID, logger: Logger) async throws -> KnownAccount? {
        try await client.withConnection { connection in try await accounts.knownAccount(userId, on: connection, logger: logger) }
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

    /// The user's product holding `gtin`, which a refused insert just found there.
    private func holder(of gtin: GTIN, on connection: PostgresConnection, logger: Logger) async throws -> Product {
        guard let product = try await repository.products(gtins: [gtin], on: connection, logger: logger).first(where: { $0.source == .community })
        else { throw ProductBarcodeVanished(gtin: gtin) }
        return product
    }

    /// `ProductStore.isVisible` inside a transaction.
    private func isVisible(_ product: Product, to caller: UUID, on connection: PostgresConnection, logger: Logger) async throws -> Bool {
        if product.isVisible(to: caller) { return true }
        guard product.status == .held else { return false }
        return try await repository.hasLogged(product.id, userId: caller, on: connection, logger: logger)
    }

    /// Records the product's current version and appends its `food.product_changed`.
    private func publish(_ product: Product, editor: UUID?, on connection: PostgresConnection, logger: Logger) async throws {
        try await repository.recordVersion(of: product, editor: editor, on: connection, logger: logger)
        try await Outbox.append(product.changedEnvelope, on: connection, logger: logger)
    }
}

/// The product that held a barcode when an insert was refused, or that an upsert wrote, was gone when read: never a
/// client's doing.
struct ProductBarcodeVanished: Error, CustomStringConvertible {
    var gtin: GTIN
    var description: String { "the product holding barcode \(gtin.digits) was gone when read" }
}

import FoodData
import Foundation
import Logging
import ServiceDefaults

/// `GET /api/foods/barcode/{code}`'s rule: a code is read into its GTIN-14 readings (422 `invalid_barcode` naming the
/// problem), then looked up in our products, then at Open Food Facts, whose product is stored with its source and
/// fetch time (and fetched again once older than the refresh age), and whose "no such product" is remembered for the
/// miss TTL; otherwise 404 `product_not_found`. When OFF cannot answer and nothing is stored: 503
/// `product_lookup_unavailable` with `Retry-After`, and nothing is remembered. A stored product past its refresh age is
/// answered as stored when the refresh fails.
struct BarcodeLookup: Sendable {
    let store: any ProductStore
    /// Nil when look-ups at Open Food Facts are switched off.
    let source: (any ProductSource)?
    let refreshAfter: TimeInterval
    let missTTL: TimeInterval
    let now: @Sendable () -> Date

    func product(code: String, caller: UUID, logger: Logger) async throws -> Product {
        try await product(readings: try Self.readings(of: code), caller: caller, logger: logger)
    }

    /// The GTIN-14 readings of a printed code, most likely first; 422 `invalid_barcode` naming the problem.
    static func readings(of code: String) throws -> [GTIN] {
        switch GTIN.readings(of: code) {
        case .success(let found): return found
        case .failure(let problem):
            throw APIError(
                .unprocessableContent, code: "invalid_barcode", message: "This is not a barcode we can read: \(problem).",
                details: ["barcode": "\(problem)"])
        }
    }

    /// Whether `product`, as stored, is the answer to everyone without asking anything more: offered to all, and not
    /// due for a refresh from Open Food Facts.
    func answersAsStored(_ product: Product) -> Bool {
        guard product.status == .offered else { return false }
        guard product.source == .openFoodFacts, source != nil, let fetchedAt = product.fetchedAt else { return true }
        return now().timeIntervalSince(fetchedAt) <= refreshAfter
    }

    /// The product a code read as `readings` names, as `product(code:caller:logger:)` finds it.
    func product(readings: [GTIN], caller: UUID, logger: Logger) async throws -> Product {
        if let stored = try await store.product(gtins: readings, logger: logger) {
            return try await answer(stored, caller: caller, logger: logger)
        }
        guard let source else { throw Self.notFound }
        let now = now()
        for gtin in readings {
            if missTTL > 0, try await store.recentMiss(of: gtin, since: now.addingTimeInterval(-missTTL), logger: logger) { continue }
            switch try await ask(source, for: gtin, logger: logger) {
            case .found(let details):
                return try await store.storeFetched(details, gtin: gtin, now: now, logger: logger)
            case .notFound:
                try await store.rememberMiss(of: gtin, now: now, logger: logger)
            }
        }
        throw Self.notFound
    }

    static let notFound = APIError(
        .notFound, code: "product_not_found",
        message: "No product has this barcode yet. Add it with POST /api/foods/products (or photograph its label).")

    /// A stored product as `caller` may see it, refreshed from OFF first when it came from there and is due.
    private func answer(_ stored: Product, caller: UUID, logger: Logger) async throws -> Product {
        switch stored.status {
        case .removed: throw Self.notFound
        case .held where stored.authorId != caller:
            throw APIError(
                .notFound, code: "product_under_review",
                message: "The product with this barcode was reported by several users and is being checked; it is back once reviewed.")
        case .held, .offered: break
        }
        guard stored.source == .openFoodFacts, let source, let fetchedAt = stored.fetchedAt,
            now().timeIntervalSince(fetchedAt) > refreshAfter
        else { return stored }
        do {
            if case .found(let details) = try await source.product(stored.gtin, logger: logger) {
                return try await store.storeFetched(details, gtin: stored.gtin, now: now(), logger: logger)
            }
        } catch let unavailable as ProductSourceUnavailable {
            logger.info("stored product answered unrefreshed", metadata: ["reason": .string(unavailable.reason)])
        }
        return stored
    }

    private func ask(_ source: any ProductSource, for gtin: GTIN, logger: Logger) async throws -> OpenFoodFactsDocument.Reading {
        do {
            return try await source.product(gtin, logger: logger)
        } catch let unavailable as ProductSourceUnavailable {
            let seconds = max(1, Int(unavailable.retryAfter.components.seconds))
            throw APIError(
                .serviceUnavailable, code: "product_lookup_unavailable",
                message: "Open Food Facts could not be asked about this barcode just now; try again shortly, or add the product.",
                headers: [.retryAfter: "\(seconds)"])
        }
    }
}

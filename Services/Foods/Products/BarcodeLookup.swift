import FoodData
import Foundation
import Logging
import ServiceDefaults

/// `GET /api/foods/barcode/{code}`'s rule: a code is read into its GTIN-14 readings (422 `invalid_barcode` naming the
/// problem), then looked up in our products, then at Open Food Facts, whose product is stored with its source and
/// fetch time (and fetched again once older than the refresh age), and whose "no such product" is remembered for the
/// miss TTL. A barcode with only a user's product is asked of Open Food Facts too (unless it said "no such product"
/// within the miss TTL): Open Food Facts' data, once it has the code, is preferred when it is complete. Nothing found:
/// 404 `product_not_found` with `details.externalLookup` saying why Open Food Facts gave nothing (`ExternalLookup`), so
/// the app offers to add the product even when Open Food Facts could not be asked; only its "no such product" is
/// remembered, so a later look-up asks again. A stored product past its refresh age is answered as stored when the
/// refresh fails, and a user's product when Open Food Facts cannot be asked.
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

    /// Whether `product`, a kept answer, is still the answer to everyone without asking anything more: offered to all,
    /// and not due for a refresh from Open Food Facts.
    func answersAsStored(_ product: Product) -> Bool {
        guard product.status == .offered else { return false }
        guard product.source == .openFoodFacts, source != nil, let fetchedAt = product.fetchedAt else { return true }
        return now().timeIntervalSince(fetchedAt) <= refreshAfter
    }

    /// The product a code read as `readings` names for everyone, when it can be answered from what is stored without
    /// asking Open Food Facts (a kept answer's renewal); nil when it cannot.
    func storedAnswer(readings: [GTIN], logger: Logger) async throws -> Product? {
        let stored = try await store.products(gtins: readings, logger: logger)
        if let fetched = stored.openFoodFacts, fetched.status == .offered, fetched.details.per100.isComplete || stored.community?.status != .offered {
            return answersAsStored(fetched) ? fetched : nil
        }
        guard let community = stored.community, community.status == .offered else { return nil }
        if stored.openFoodFacts != nil || source == nil { return community }
        return try await recentMiss(of: community.gtin, logger: logger) ? community : nil
    }

    /// The product a code read as `readings` names, as `product(code:caller:logger:)` finds it.
    func product(readings: [GTIN], caller: UUID, logger: Logger) async throws -> Product {
        let stored = try await store.products(gtins: readings, logger: logger)
        guard stored.isEmpty else { return try await answer(stored, caller: caller, logger: logger) }
        guard let source else { throw Self.notFound(readings, externalLookup: .disabled) }
        let now = now()
        for gtin in readings {
            if try await recentMiss(of: gtin, logger: logger) { continue }
            do {
                switch try await source.product(gtin, logger: logger) {
                case .found(let details):
                    return try await store.storeFetched(details, gtin: gtin, now: now, logger: logger)
                case .notFound:
                    try await store.rememberMiss(of: gtin, now: now, logger: logger)
                }
            } catch let unavailable as ProductSourceUnavailable {
                logger.info("barcode not asked of Open Food Facts", metadata: ["reason": .string(unavailable.reason)])
                throw Self.notFound(readings, externalLookup: unavailable.cause)
            }
        }
        throw Self.notFound(readings, externalLookup: .notFound)
    }

    /// 404 `product_not_found` for a code read as `readings`: `details.barcode` is its GTIN-14, and
    /// `details.externalLookup`, when given, why Open Food Facts gave nothing.
    static func notFound(_ readings: [GTIN], externalLookup: ExternalLookup?) -> APIError {
        var details: [String: String] = [:]
        if let gtin = readings.first { details["barcode"] = gtin.digits }
        if let externalLookup { details["externalLookup"] = externalLookup.rawValue }
        let message =
            switch externalLookup {
            case .unavailable?, .budgetExhausted?:
                "No product has this barcode here, and Open Food Facts could not be asked just now. Add it with POST /api/foods/products (or photograph its label)."
            case .notFound?, .disabled?, nil:
                "No product has this barcode yet. Add it with POST /api/foods/products (or photograph its label)."
            }
        return APIError(.notFound, code: "product_not_found", message: message, details: details)
    }

    /// What is stored under a barcode as `caller` gets it: Open Food Facts' product when it has the code, refreshed first
    /// when due (a user's product sends the question first when Open Food Facts was not asked within the miss TTL);
    /// the user's product when Open Food Facts' is incomplete or there is none, as far as `caller` may see it.
    private func answer(_ stored: BarcodeProducts, caller: UUID, logger: Logger) async throws -> Product {
        var fetched = stored.openFoodFacts
        if let product = fetched, product.status != .removed {
            fetched = try await refreshed(product, logger: logger)
        } else if fetched == nil, let community = stored.community, let source,
            try await !recentMiss(of: community.gtin, logger: logger)
        {
            fetched = try await ask(source, about: community.gtin, logger: logger)
        }
        if let fetched, fetched.status == .offered {
            var usable = false
            if let community = stored.community { usable = try await isUsable(community, by: caller, logger: logger) }
            if fetched.details.per100.isComplete || !usable { return fetched }
        }
        guard let community = stored.community else { throw Self.notFound([stored.openFoodFacts?.gtin].compactMap { $0 }, externalLookup: nil) }
        switch community.status {
        case .removed: throw Self.notFound([community.gtin], externalLookup: nil)
        case .held:
            guard try await store.isVisible(community, to: caller, logger: logger) else {
                throw APIError(
                    .notFound, code: "product_under_review",
                    message: "The product with this barcode was reported by several users and is being checked; it is back once reviewed.")
            }
            return community
        case .offered: return community
        }
    }

    /// Whether `caller` may be answered the user's product `community`.
    private func isUsable(_ community: Product, by caller: UUID, logger: Logger) async throws -> Bool {
        guard community.status != .removed else { return false }
        return try await store.isVisible(community, to: caller, logger: logger)
    }

    /// Open Food Facts' product fetched again when it is due; as stored when the refresh fails.
    private func refreshed(_ stored: Product, logger: Logger) async throws -> Product {
        guard let source, let fetchedAt = stored.fetchedAt, now().timeIntervalSince(fetchedAt) > refreshAfter else { return stored }
        do {
            if case .found(let details) = try await source.product(stored.gtin, logger: logger) {
                return try await store.storeFetched(details, gtin: stored.gtin, now: now(), logger: logger)
            }
        } catch let unavailable as ProductSourceUnavailable {
            logger.info("stored product answered unrefreshed", metadata: ["reason": .string(unavailable.reason)])
        }
        return stored
    }

    /// Open Food Facts' product of a barcode that has a user's product: stored when it has one, its "no such product"
    /// remembered; nil when it has none or could not be asked (the user's product is answered meanwhile).
    private func ask(_ source: any ProductSource, about gtin: GTIN, logger: Logger) async throws -> Product? {
        do {
            switch try await source.product(gtin, logger: logger) {
            case .found(let details):
                return try await store.storeFetched(details, gtin: gtin, now: now(), logger: logger)
            case .notFound:
                try await store.rememberMiss(of: gtin, now: now(), logger: logger)
                return nil
            }
        } catch let unavailable as ProductSourceUnavailable {
            logger.info("a user's product answered unchecked", metadata: ["reason": .string(unavailable.reason)])
            return nil
        }
    }

    private func recentMiss(of gtin: GTIN, logger: Logger) async throws -> Bool {
        guard missTTL > 0 else { return false }
        return try await store.recentMiss(of: gtin, since: now().addingTimeInterval(-missTTL), logger: logger)
    }
}

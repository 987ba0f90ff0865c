import FoodData
import Foundation
import HTTPTypes
import Hummingbird
import ServiceDefaults

/// Products from users: `POST /api/foods/products` (201; 409 `duplicate_barcode` pointing at the product that has the
/// barcode; 429 `product_limit_reached` past the author's products of the day), `PUT /api/foods/products/{id}` (the
/// author's edit, a new version; `If-Match` optional, 409 `version_conflict` when stale),
/// `GET /api/foods/products/{id}/versions`, `GET /api/foods/products?mine=true` and
/// `POST /api/foods/products/{id}/reports` (enough established accounts' reports hold a user's product back from others;
/// 429 `report_limit_reached` past the reporter's reports of the day).
struct ProductController: Sendable {
    let store: any ProductStore
    /// The daily limits, whose reports count and how many hold a product (`FOODS_*`).
    let rules: CommunityRules
    let now: @Sendable () -> Date

    /// Most of a caller's own products listed.
    static let listLimit = 200
    static let maxNoteLength = 500

    func addRoutes(to router: Router<AppRequestContext>) {
        router.post("/api/foods/products", use: create)
        router.get("/api/foods/products", use: mine)
        router.put("/api/foods/products/:id", use: edit)
        router.get("/api/foods/products/:id/versions", use: versions)
        router.post("/api/foods/products/:id/reports", use: report)
    }

    @Sendable func create(request: Request, context: AppRequestContext) async throws -> Response {
        let caller = try CallerIdentity(request)
        let (gtin, details) = try ProductDraftReader.read(try await request.decodeJSON(as: ProductDraftBody.self, context: context))
        let now = now()
        switch try await store.create(details, gtin: gtin, author: caller.userId, perDay: rules.productsPerDay, now: now, logger: context.logger) {
        case .created(let product):
            let trust = try await store.trust(of: product, rule: rules.establishedAccount, now: now, logger: context.logger)
            var response = try ProductBody(product, trust: trust, caller: caller.userId).response(from: request, context: context)
            response.status = .created
            response.headers[.location] = "/api/foods/\(product.id.lowercasedString)"
            response.headers[.eTag] = "\"\(product.version)\""
            return response
        case .duplicate(let existing):
            let visible = try await store.isVisible(existing, to: caller.userId, logger: context.logger)
            let message =
                switch (existing.status, existing.source) {
                case (.removed, _): "A product with this barcode was removed after review; it cannot be added again."
                case (.held, _) where !visible: "A product with this barcode exists already and is being reviewed."
                case (_, .openFoodFacts): "Open Food Facts has this barcode's product; report it if it is wrong."
                case (.held, .community), (.offered, .community): "A product with this barcode exists already; report it if it is wrong."
                }
            throw APIError(
                .conflict, code: "duplicate_barcode", message: message,
                details: ["barcode": gtin.digits, "existingProductId": existing.id.lowercasedString])
        case .limited(let retryAfter):
            throw Self.limitReached(
                code: "product_limit_reached", retryAfter: retryAfter, limit: rules.productsPerDay,
                message: "You added \(rules.productsPerDay) products in the last 24 hours, as many as one account may; add more later.")
        }
    }

    /// 429 `code` with `Retry-After` (at least 1 s) and the daily `limit` in `details`.
    static func limitReached(code: String, retryAfter: TimeInterval, limit: Int, message: String) -> APIError {
        let seconds = max(1, Int(retryAfter.rounded(.up)))
        return APIError(
            .tooManyRequests, code: code, message: message, details: ["limit": String(limit), "windowSeconds": String(Int(CommunityRules.day))],
            headers: [.retryAfter: String(seconds)])
    }

    @Sendable func mine(request: Request, context: AppRequestContext) async throws -> ProductListBody {
        let caller = try CallerIdentity(request)
        guard request.uri.queryParameters["mine"].map(String.init) == "true" else {
            throw APIError.invalid(["mine": "Only your own products are listed: add mine=true (search finds everyone's)."])
        }
        let products = try await store.products(authoredBy: caller.userId, limit: Self.listLimit, logger: context.logger)
        let trust = try await store.trust(of: products, rule: rules.establishedAccount, now: now(), logger: context.logger)
        return ProductListBody(products: products.map { ProductBody($0, trust: trust[$0.id] ?? .unconfirmed, caller: caller.userId) })
    }

    @Sendable func edit(request: Request, context: AppRequestContext) async throws -> Response {
        let caller = try CallerIdentity(request)
        let id = try productId(context)
        let expected = try request.ifMatchVersion()
        let (gtin, details) = try ProductDraftReader.read(try await request.decodeJSON(as: ProductDraftBody.self, context: context))
        if let stored = try await store.product(id: id, logger: context.logger), stored.gtin != gtin,
            try await store.isVisible(stored, to: caller.userId, logger: context.logger)
        {
            throw APIError.invalid(["barcode": "A product's barcode cannot change; add the other barcode as a product of its own."])
        }
        switch try await store.edit(id: id, editor: caller.userId, details: details, expectedVersion: expected, now: now(), logger: context.logger) {
        case .edited(let product):
            let trust = try await store.trust(of: product, rule: rules.establishedAccount, now: now(), logger: context.logger)
            var response = try ProductBody(product, trust: trust, caller: caller.userId).response(from: request, context: context)
            response.headers[.eTag] = "\"\(product.version)\""
            return response
        case .notFound: throw APIError.notFound("No such product.")
        case .notAuthor:
            throw APIError(.forbidden, code: "not_author", message: "Only the user who added a product edits it; report it if it is wrong.")
        case .versionMismatch(let current):
            // As meals answers a stale meal edit.
            throw APIError(
                .conflict, code: "version_conflict",
                message: "The product changed since you read it (version \(current), you sent \(expected ?? 0)); reload and retry.",
                details: ["currentVersion": String(current)])
        }
    }

    @Sendable func versions(request: Request, context: AppRequestContext) async throws -> ProductVersionsBody {
        let caller = try CallerIdentity(request)
        let id = try productId(context)
        guard let product = try await store.product(id: id, logger: context.logger),
            try await store.isVisible(product, to: caller.userId, logger: context.logger)
        else { throw APIError.notFound("No such product.") }
        let versions = try await store.versions(of: id, logger: context.logger)
        return ProductVersionsBody(
            productId: id,
            versions: versions.map {
                .init(version: $0.version, editedAt: $0.editedAt, product: .init(details: $0.details, barcode: product.gtin.digits))
            })
    }

    /// The body of a report.
    struct ReportRequest: Decodable {
        var reason: String?
        var note: String?
    }

    @Sendable func report(request: Request, context: AppRequestContext) async throws -> Response {
        let caller = try CallerIdentity(request)
        let id = try productId(context)
        let body = try await request.decodeJSON(as: ReportRequest.self, context: context)
        var problems: [String: String] = [:]
        let reason = body.reason.flatMap(ProductReport.Reason.init(rawValue:))
        if reason == nil { problems["reason"] = "Use one of \(ProductReport.Reason.allCases.map(\.rawValue).joined(separator: ", "))." }
        let note = body.note?.trimmingCharacters(in: .whitespacesAndNewlines)
        if let note, note.count > Self.maxNoteLength { problems["note"] = "Use at most \(Self.maxNoteLength) characters." }
        guard problems.isEmpty, let reason else { throw APIError.invalid(problems) }
        switch try await store.report(
            productId: id, reporter: caller.userId, reason: reason, note: note?.isEmpty == true ? nil : note, rules: rules, now: now(),
            logger: context.logger)
        {
        case .recorded(let reports, let counted, let held):
            var response = try ReportBody(productId: id, reports: reports, counted: counted, held: held).response(from: request, context: context)
            response.status = .accepted
            return response
        case .limited(let retryAfter):
            throw Self.limitReached(
                code: "report_limit_reached", retryAfter: retryAfter, limit: rules.reportsPerDay,
                message: "You sent \(rules.reportsPerDay) reports in the last 24 hours, as many as one account may; report more later.")
        case .notFound: throw APIError.notFound("No such product.")
        case .ownProduct:
            // 403 as `not_author` is: who the caller is decides, not what the request says.
            throw APIError(.forbidden, code: "own_product", message: "You added this product: edit it instead of reporting it.")
        }
    }

    private func productId(_ context: AppRequestContext) throws -> UUID {
        guard let id = context.parameters.get("id").flatMap(UUID.init(uuidString:)) else { throw APIError.notFound("No such product.") }
        return id
    }
}

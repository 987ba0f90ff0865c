import Foundation
import Hummingbird
import Logging
import ServiceDefaults

/// Operators' review of reported products, on the admin port only (never through the gateway):
/// `GET /admin/foods/held` lists the products held back after reports, with the reports, oldest first;
/// `GET /admin/foods/reported` the products reported but not held (Open Food Facts' ones, which our users' reports never
/// hold, and users' ones with too few counted reports), most recently reported first;
/// `POST /admin/foods/products/{id}/review` with `{"decision": "reinstate"|"remove"}` offers one again (its reports
/// cleared) or removes it for good (its barcode stays taken, so the same junk cannot come back under it).
struct ProductReviewController: Sendable {
    let store: any ProductStore
    /// Whose logging confirms a product, for the products' `confirmations`.
    let established: EstablishedAccountRule
    let now: @Sendable () -> Date

    static let listLimit = 100

    /// One held product with what its reporters said.
    struct HeldProductBody: Encodable {
        struct Report: Encodable {
            var reason: String
            var note: String?
            var reportedAt: Date
            /// Whether it counts towards holding the product.
            var counted: Bool
        }

        var product: ProductBody
        var reports: [Report]
    }

    /// Products with their reports.
    struct HeldListBody: ResponseEncodable {
        var products: [HeldProductBody]
    }

    struct ReviewRequest: Decodable {
        var decision: String?
    }

    var routes: AdminRoutes {
        AdminRoutes { router in
            router.get("/admin/foods/held", use: held)
            router.get("/admin/foods/reported", use: reported)
            router.post("/admin/foods/products/:id/review", use: review)
        }
    }

    @Sendable func held(request: Request, context: AppRequestContext) async throws -> HeldListBody {
        try await list(try await store.heldProducts(limit: Self.listLimit, logger: context.logger), logger: context.logger)
    }

    @Sendable func reported(request: Request, context: AppRequestContext) async throws -> HeldListBody {
        try await list(try await store.reportedProducts(limit: Self.listLimit, logger: context.logger), logger: context.logger)
    }

    private func list(_ entries: [(product: Product, reports: [ProductReport])], logger: Logger) async throws -> HeldListBody {
        let trust = try await store.trust(of: entries.map(\.product), rule: established, now: now(), logger: logger)
        return HeldListBody(
            products: entries.map { entry in
                HeldProductBody(
                    product: ProductBody(entry.product, trust: trust[entry.product.id] ?? .unconfirmed, caller: UUID()),
                    reports: entry.reports.map { .init(reason: $0.reason.rawValue, note: $0.note, reportedAt: $0.reportedAt, counted: $0.counted) })
            })
    }

    @Sendable func review(request: Request, context: AppRequestContext) async throws -> ProductBody {
        guard let id = context.parameters.get("id").flatMap(UUID.init(uuidString:)) else { throw APIError.notFound("No such product.") }
        let body = try await request.decodeJSON(as: ReviewRequest.self, context: context)
        guard let decision = body.decision.flatMap(ReviewDecision.init(rawValue:)) else {
            throw APIError.invalid(["decision": "Use reinstate or remove."])
        }
        guard let product = try await store.review(id: id, decision: decision, now: now(), logger: context.logger) else {
            throw APIError.notFound("No such product.")
        }
        context.logger.notice(
            "product reviewed", metadata: ["product_id": .string(id.lowercasedString), "decision": .string(decision.rawValue)])
        let trust = try await store.trust(of: product, rule: established, now: now(), logger: context.logger)
        return ProductBody(product, trust: trust, caller: UUID())
    }
}

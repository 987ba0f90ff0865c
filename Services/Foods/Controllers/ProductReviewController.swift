import Foundation
import Hummingbird
import ServiceDefaults

/// Operators' review of reported products, on the admin port only (never through the gateway):
/// `GET /admin/foods/held` lists the products held back after reports, with the reports, oldest first;
/// `POST /admin/foods/products/{id}/review` with `{"decision": "reinstate"|"remove"}` offers one again (its reports
/// cleared) or removes it for good (its barcode stays taken, so the same junk cannot come back under it).
struct ProductReviewController: Sendable {
    let store: any ProductStore
    let now: @Sendable () -> Date

    static let listLimit = 100

    /// One held product with what its reporters said.
    struct HeldProductBody: Encodable {
        struct Report: Encodable {
            var reason: String
            var note: String?
            var reportedAt: Date
        }

        var product: ProductBody
        var reports: [Report]
    }

    struct HeldListBody: ResponseEncodable {
        var products: [HeldProductBody]
    }

    struct ReviewRequest: Decodable {
        var decision: String?
    }

    var routes: AdminRoutes {
        AdminRoutes { router in
            router.get("/admin/foods/held", use: held)
            router.post("/admin/foods/products/:id/review", use: review)
        }
    }

    @Sendable func held(request: Request, context: AppRequestContext) async throws -> HeldListBody {
        let held = try await store.heldProducts(limit: Self.listLimit, logger: context.logger)
        return HeldListBody(
            products: held.map { entry in
                HeldProductBody(
                    product: ProductBody(entry.product, caller: UUID()),
                    reports: entry.reports.map { .init(reason: $0.reason.rawValue, note: $0.note, reportedAt: $0.reportedAt) })
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
        return ProductBody(product, caller: UUID())
    }
}

import EventContracts
import Foundation
import Hummingbird
import Logging
import NIOCore
import ServiceDefaults
import WireJSON

/// The share API: create a link for one's own meal, list and revoke one's links, and the public JSON view.
struct ShareController: Sendable {
    let store: any SharingStore
    /// The meals service, asked for a shared photo and, after a vain wait, whether the meal exists.
    let meals: any MealsLookup
    let opener: LinkOpener
    let views: SharedViewAnswers
    let addresses: PublicAddresses
    /// How a share request waits for the meal's first event.
    let mealWait: MealWait
    let now: @Sendable () -> Date

    func addRoutes(to router: Router<AppRequestContext>) {
        router.post("/api/share/meal/:id", use: share)
        router.get("/api/share", use: list)
        router.get("/api/share/:token", use: view)
        router.delete("/api/share/:token", use: revoke)
    }

    /// `POST /api/share/meal/:id` {expiresInDays?, includePhoto?, showDisplayName?}: 201 with the new link.
    /// A meal the service has not heard of yet is waited for (`MealWait`) and then shared. 404 `meal_not_found` for a
    /// meal the caller does not own (or that was deleted), also when the meals service, asked after a vain wait, has no
    /// such meal for the caller; 409 `meal_not_ready` with `Retry-After` when it has one whose first event has not arrived
    /// within the wait; 503 `busy` when too many requests wait already, `service_unavailable` when the meals service
    /// cannot be asked.
    @Sendable func share(request: Request, context: AppRequestContext) async throws -> EditedResponse<ShareLinkBody> {
        let caller = try CallerIdentity(request)
        let mealId = try context.parameters.uuid("id")
        let body = try await request.decodeOptionalJSON(as: ShareRequest.self, empty: ShareRequest(), context: context)
        let days = body.expiresInDays ?? ShareRequest.defaultDays
        guard (1...ShareRequest.maximumDays).contains(days) else {
            throw APIError.invalid(["expiresInDays": "Use 1 to \(ShareRequest.maximumDays) days."])
        }
        let meal = try await ownedMeal(mealId, of: caller, requestId: context.requestId, logger: context.logger)
        var includePhoto = false
        if body.includePhoto == true {
            includePhoto = try await copyPhoto(of: meal, for: caller, requestId: context.requestId, logger: context.logger)
        }
        let created = now()
        let link = ShareLink(
            token: CapabilityToken.generate(), linkId: UUID(), mealId: mealId, userId: caller.userId, createdAt: created,
            expiresAt: created.addingTimeInterval(Double(days) * 86_400), revokedAt: nil, includePhoto: includePhoto,
            showDisplayName: body.showDisplayName ?? false, viewCount: 0, lastViewedAt: nil, mealTitle: meal.title,
            mealCalories: meal.totals.calories)
        try await store.createLink(link, logger: context.logger)
        return EditedResponse(
            status: .created, headers: [.location: "/api/share/\(link.token)"],
            response: ShareLinkBody(link, addresses: addresses, now: created))
    }

    /// `GET /api/share?limit=20&cursor=`: the caller's links, newest first, with their view counts and status.
    @Sendable func list(request: Request, context: AppRequestContext) async throws -> ShareLinkPageBody {
        let caller = try CallerIdentity(request)
        let query = request.uri.queryParameters
        let limit = query["limit"].map { Int(String($0)) ?? -1 } ?? 20
        guard (1...100).contains(limit) else { throw APIError.invalid(["limit": "Use 1 to 100."]) }
        let cursor = try query["cursor"].map { try ListCursor.decodeTime(String($0)) }.map { LinkCursor(createdAtMicros: $0.micros, linkId: $0.id) }
        // The views this replica counted so far show at once (others' within their write interval).
        try await opener.views.flush(logger: context.logger)
        let rows = try await store.links(of: caller.userId, after: cursor, limit: limit + 1, logger: context.logger)
        let page = rows.prefix(limit)
        let current = now()
        return ShareLinkPageBody(
            links: page.map { ShareLinkBody($0, addresses: addresses, now: current) },
            nextCursor: rows.count > limit ? page.last.map { ListCursor.encode(time: $0.createdAt, id: $0.linkId) } : nil)
    }

    /// `GET /api/share/:token`, public: the shared meal; counts a view.
    @Sendable func view(request: Request, context: AppRequestContext) async throws -> Response {
        let current = now()
        let view = try await views.answer(context.parameters.get("token") ?? "", now: current, logger: context.logger)
        return PublicResponse.make(
            view.body, contentType: "application/json; charset=utf-8", digest: view.digest, expiresAt: view.stamp.expiresAt,
            lifetime: PublicResponse.viewLifetime, now: current, request: request)
    }

    /// `DELETE /api/share/:token`: 204, also when already revoked or expired; 404 for a link the caller does not own.
    @Sendable func revoke(request: Request, context: AppRequestContext) async throws -> HTTPResponse.Status {
        let caller = try CallerIdentity(request)
        let token = context.parameters.get("token") ?? ""
        guard CapabilityToken.isWellFormed(token),
            try await store.revoke(token: token, userId: caller.userId, now: now(), logger: context.logger)
        else {
            throw LinkOpener.refusal(nil)
        }
        return .noContent
    }

    /// The caller's meal, waited for when its first event has not arrived yet. After a vain wait the meals service is
    /// asked whether the caller has such a meal at all, so that "never" (404) is not answered as "not yet" (409), which
    /// a client would retry for ever.
    private func ownedMeal(_ mealId: UUID, of caller: CallerIdentity, requestId: String, logger: Logger) async throws -> MealSnapshot {
        let lookup = { try await store.meal(mealId, logger: logger) }
        var stored = try await mealWait.meal(mealId, of: caller.userId, lookup: lookup)
        if stored == nil {
            guard try await meals.holds(mealId: mealId, for: caller, requestId: requestId, logger: logger) else { throw Self.noSuchMeal }
            // The event may have arrived while the meals service answered.
            stored = try await lookup()
        }
        guard let stored else { throw Self.notReady }
        // Another user's meal is as unknown as a missing one.
        guard stored.userId == caller.userId, let snapshot = stored.snapshot else { throw Self.noSuchMeal }
        return snapshot
    }

    /// Copies the meal's photo once (later shares reuse it); false when the meal has none.
    private func copyPhoto(of meal: MealSnapshot, for caller: CallerIdentity, requestId: String, logger: Logger) async throws -> Bool {
        guard meal.hasPhoto else { return false }
        if try await store.hasPhoto(mealId: meal.mealId, logger: logger) { return true }
        guard let photo = try await meals.photo(mealId: meal.mealId, for: caller, requestId: requestId, logger: logger) else {
            return false
        }
        try await store.savePhoto(photo, mealId: meal.mealId, userId: caller.userId, logger: logger)
        return true
    }

    private static let noSuchMeal = APIError(.notFound, code: "meal_not_found", message: "No such meal.")
    private static let notReady = APIError(
        .conflict, code: "meal_not_ready", message: "This meal is not ready to share yet; try again in a moment.", headers: [.retryAfter: "1"])

    static let encoder: JSONEncoder = {
        let encoder = WireJSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = .sortedKeys
        return encoder
    }()
}

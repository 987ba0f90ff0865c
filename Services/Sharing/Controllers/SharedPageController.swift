import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import ServiceDefaults

/// The public web side of a link: the HTML page (counts a view), the share card (SVG and PNG) and the photo.
struct SharedPageController: Sendable {
    let opener: LinkOpener
    let renderer: SharedPageRenderer
    let cardImages: ShareCardImages
    let addresses: PublicAddresses
    let now: @Sendable () -> Date

    /// Scripts never run on these documents; styles are inline, images come from the same site.
    static let pagePolicy: HTTPFields = [
        .init("Content-Security-Policy")!:
            "default-src 'none'; img-src 'self'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    ]
    static let cardPolicy: HTTPFields = [.init("Content-Security-Policy")!: "default-src 'none'; style-src 'unsafe-inline'"]

    func addRoutes(to router: Router<AppRequestContext>) {
        router.get("/shared/:token", use: page)
        router.get("/shared/:token/card.svg", use: card)
        router.get("/shared/:token/card.png", use: cardImage)
        router.get("/shared/:token/photo", use: photo)
    }

    /// `GET /shared/:token`: the page with OpenGraph and Twitter card tags. A link that does not open answers its
    /// 404 or 410 as a page for browsers and in the error shape for everything else.
    @Sendable func page(request: Request, context: AppRequestContext) async throws -> Response {
        let current = now()
        let shared: SharedMeal
        do {
            shared = try await opener.open(context.parameters.get("token") ?? "", now: current, countingView: true, logger: context.logger)
        } catch let error as APIError where Self.wantsHTML(request) {
            return unavailablePage(error)
        }
        let html = renderer.page(SharedMealView(shared, addresses: addresses))
        return PublicResponse.make(
            ByteBuffer(string: html), contentType: "text/html; charset=utf-8", expiresAt: shared.expiresAt,
            lifetime: PublicResponse.viewLifetime, now: current, request: request, headers: Self.pagePolicy)
    }

    /// `GET /shared/:token/card.svg`: the 1200x630 share image.
    @Sendable func card(request: Request, context: AppRequestContext) async throws -> Response {
        let current = now()
        let shared = try await opener.open(context.parameters.get("token") ?? "", now: current, countingView: false, logger: context.logger)
        let svg = renderer.card(SharedMealView(shared, addresses: addresses))
        return PublicResponse.make(
            ByteBuffer(string: svg), contentType: "image/svg+xml; charset=utf-8", expiresAt: shared.expiresAt,
            lifetime: PublicResponse.assetLifetime, now: current, request: request, headers: Self.cardPolicy)
    }

    /// `GET /shared/:token/card.png`: the same card as a 1200x630 PNG (with the photo when the link includes it),
    /// rendered once per card and kept. A render that cannot be made answers 503 `card_unavailable`, never the
    /// rasteriser's own words.
    @Sendable func cardImage(request: Request, context: AppRequestContext) async throws -> Response {
        let current = now()
        let shared = try await opener.open(context.parameters.get("token") ?? "", now: current, countingView: false, logger: context.logger)
        let png: ByteBuffer
        do {
            png = try await cardImages.png(for: shared, view: SharedMealView(shared, addresses: addresses), now: current, logger: context.logger)
        } catch let failure as CardRenderFailure {
            context.logger.warning("share card not rendered", metadata: ["reason": .string("\(failure)")])
            throw APIError(
                .serviceUnavailable, code: "card_unavailable", message: "The share image cannot be made right now; try again shortly.",
                headers: [.retryAfter: failure == .busy ? "1" : "30"])
        }
        return PublicResponse.make(
            png, contentType: "image/png", expiresAt: shared.expiresAt, lifetime: PublicResponse.assetLifetime, now: current,
            request: request)
    }

    /// `GET /shared/:token/photo`: the meal's photo, only when the owner shared it; 404 otherwise.
    @Sendable func photo(request: Request, context: AppRequestContext) async throws -> Response {
        let current = now()
        let token = context.parameters.get("token") ?? ""
        guard CapabilityToken.isWellFormed(token),
            let (photo, expiresAt) = try await opener.store.photo(token: token, now: current, logger: context.logger)
        else {
            // Why not: the link's own refusal when it does not open, else it was shared without a photo.
            _ = try await opener.open(token, now: current, countingView: false, logger: context.logger)
            throw APIError(.notFound, code: "photo_not_shared", message: "This link does not include a photo.")
        }
        return PublicResponse.make(
            photo.bytes, contentType: photo.mediaType, digest: photo.digest, expiresAt: expiresAt,
            lifetime: PublicResponse.assetLifetime, now: current, request: request)
    }

    private func unavailablePage(_ error: APIError) -> Response {
        let heading = error.status == .gone ? "This link is no longer available" : "Link not found"
        var headers = PublicResponse.securityHeaders
        headers.append(contentsOf: Self.pagePolicy)
        headers[.contentType] = "text/html; charset=utf-8"
        headers[.cacheControl] = "no-store"
        return Response(
            status: error.status, headers: headers,
            body: ResponseBody(byteBuffer: ByteBuffer(string: renderer.unavailable(heading: heading, message: error.message))))
    }

    /// Whether the client asked for HTML (a browser), not JSON.
    static func wantsHTML(_ request: Request) -> Bool {
        request.headers[values: .accept].contains { $0.contains("text/html") }
    }
}

import AccessTokens
import Foundation
import Hummingbird
import PostgresSupport
import ServiceDefaults

/// `GET /internal/revocations?after=<cursor>`: the ended sessions and deleted accounts whose access tokens may still
/// be unexpired, for the gateways, which poll it and refuse those tokens (docs/OPERATIONS.md, "Revocation at the
/// edge"). Without `after`, every live one; with it, those recorded since (and some before: polls overlap). Not in
/// the gateway's routes file, so clients never reach it; only what can reach the auth service's JWKS can.
struct RevocationController: Sendable {
    let client: PostgresPool
    let revocations: RevocationRepository
    let now: @Sendable () -> Date
    /// The most one answer holds; the cursor then continues after the last.
    var pageLimit = 10_000

    func addRoutes(to router: Router<some RequestContext>) {
        router.get("/internal/revocations") { request, context in try await list(request: request, context: context) }
    }

    func list(request: Request, context: some RequestContext) async throws -> Response {
        var after: Date?
        if let text = request.uri.queryParameters["after"] {
            guard let micros = Int64(text) else { throw APIError.badRequest("after must be a cursor from an earlier answer.") }
            after = Date(timeIntervalSince1970: Double(micros) / 1_000_000)
        }
        let (revocations, cursor) = try await client.withConnection { connection in
            try await self.revocations.live(after: after, limit: pageLimit, now: now(), on: connection, logger: context.logger)
        }
        let page = RevocationPage(revocations: revocations, cursor: String(Int64((cursor.timeIntervalSince1970 * 1_000_000).rounded(.down))))
        return Response(
            status: .ok, headers: [.contentType: "application/json", .cacheControl: "no-store"],
            body: .init(byteBuffer: ByteBuffer(bytes: try page.encoded())))
    }
}

import AccessTokens
import Foundation
import Hummingbird
import PostgresSupport
import ServiceDefaults
import ServiceLifecycle

/// `GET /internal/revocations?after=<cursor>[&wait=<seconds>]`: the ended sessions and deleted accounts whose access
/// tokens may still be unexpired, for the gateways, which poll it and refuse those tokens (docs/OPERATIONS.md,
/// "Revocation at the edge"). Without `after`, every live one; with it, those recorded since (and some before: polls
/// overlap). With `wait` and nothing recorded since the previous poll, the answer is held until a revocation commits
/// (`RevocationNotices`) or `wait` seconds (at most `maxWait`) have passed, so an idle gateway asks a few times a
/// minute and a sign-out reaches it in one round trip. Not in the gateway's routes file, so clients never reach it;
/// only what can reach the auth service's JWKS can.
struct RevocationController: Sendable {
    let client: PostgresPool
    let revocations: RevocationRepository
    let notices: NoticeBroadcast
    let now: @Sendable () -> Date
    /// The most one answer holds; the cursor then continues after the last.
    var pageLimit = 10_000
    /// The longest an answer is held.
    var maxWait: Duration = .seconds(30)

    func addRoutes(to router: Router<some RequestContext>) {
        router.get("/internal/revocations") { request, context in try await list(request: request, context: context) }
    }

    func list(request: Request, context: some RequestContext) async throws -> Response {
        var after: Date?
        if let text = request.uri.queryParameters["after"] {
            guard let micros = Int64(text) else { throw APIError.badRequest("after must be a cursor from an earlier answer.") }
            after = Date(timeIntervalSince1970: Double(micros) / 1_000_000)
        }
        var wait = Duration.zero
        if let text = request.uri.queryParameters["wait"] {
            guard let seconds = Double(text), seconds >= 0, seconds <= maxWait.timeInterval else {
                throw APIError.badRequest("wait must be a number of seconds from 0 to \(Int(maxWait.timeInterval)).")
            }
            wait = .seconds(seconds)
        }
        // Read before looking, so a revocation committed while this looks ends the wait at once.
        let seen = notices.generation
        var (found, cursor, newest) = try await live(after: after, context: context)
        // `after` is the previous poll's database time less the overlap: anything newer than that time is news to it.
        if let after, wait > .zero, (newest ?? .distantPast) <= after.addingTimeInterval(revocations.overlap.timeInterval) {
            // A graceful shutdown answers the held poll at once rather than making the server's drain wait for it.
            await cancelWhenGracefulShutdown { [notices, wait] in await notices.wait(after: seen, timeout: wait) }
            (found, cursor, _) = try await live(after: after, context: context)
        }
        let page = RevocationPage(revocations: found, cursor: String(Int64((cursor.timeIntervalSince1970 * 1_000_000).rounded(.down))))
        return Response(
            status: .ok, headers: [.contentType: "application/json", .cacheControl: "no-store"],
            body: .init(byteBuffer: ByteBuffer(bytes: try page.encoded())))
    }

    private func live(after: Date?, context: some RequestContext) async throws -> ([Revocation], cursor: Date, newest: Date?) {
        try await client.withConnection { connection in
            try await self.revocations.live(after: after, limit: pageLimit, now: now(), on: connection, logger: context.logger)
        }
    }
}

import AccessTokens
import AsyncHTTPClient
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import NIOHTTP1
import NIOPosix
import ServiceDefaults

/// Forwards requests whose path matched a route to their upstream service, streaming the answer back.
/// Strips hop-by-hop and client-supplied identity headers, passes the verified caller in `X-User-Id` and
/// `X-Session-Id`, and maps upstream failures to 502, 503 or 504 in the one error shape. While tracing is on, the
/// upstream call is a client span (`POST meals`) whose `traceparent` replaces the client's, so the service's span is
/// its child; while it is off, a client's `traceparent` passes through as sent.
/// A safe request (GET, HEAD, OPTIONS) whose connection the upstream closed before answering is sent once more
/// (the closed connection has left the pool): a draining or restarting service closes idle keep-alive connections,
/// and the gateway may have picked one of them just then (RFC 9110 §9.2.2 allows retrying idempotent requests;
/// AsyncHTTPClient does not).
/// Writes are never sent again once sent: whether the upstream acted on one is unknown, so the client gets the 502 and
/// decides. Any request whose connection could not be made goes to another address of the upstream (`UpstreamClient`).
/// Requests that match no route fall through (to the gateway's own routes or 404), and so do routes whose upstream
/// is `RouteTable.gatewayUpstream`: the gateway answers those itself, after the same route match, token check and
/// rate limit as any proxied route (see `SyncController`).
struct UpstreamProxy: RouterMiddleware {
    /// The upstream that issues sessions, the only one the session cookies are passed to.
    static let sessionUpstream = "auth"
    typealias Context = GatewayRequestContext
    let upstreamClient: UpstreamClient
    let maxBodyBytes: Int

    /// Upstream answers up to this size are read whole and sent in one write; larger ones are streamed.
    static var bufferedResponseLimit: Int { 256 * 1024 }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let route = context.route, upstreamClient.serves(route.upstream) else {
            return try await next(request, context)
        }
        // No service answers these, and the HTTP client refuses TRACE with a body (which was a 502): a client error.
        if request.method == .trace || request.method == .connect {
            throw APIError(.methodNotAllowed, code: "method_not_allowed", message: "\(request.method.rawValue) is not supported.")
        }
        let upstreamRequest = try await makeUpstreamRequest(
            request, maxBodyBytes: route.maxBodyBytes ?? maxBodyBytes, context: context)
        let upstreamResponse = try await upstreamClient.send(upstreamRequest, upstream: route.upstream, context: context)
        var headers = HTTPFields()
        for header in upstreamResponse.headers where !ProxyHeaders.hopByHop.contains(header.name.lowercased()) {
            if let name = HTTPField.Name(header.name) { headers.append(HTTPField(name: name, value: header.value)) }
        }
        let body: ResponseBody
        if let length = upstreamResponse.headers.first(name: "content-length").flatMap(Int.init), length <= Self.bufferedResponseLimit {
            do {
                body = ResponseBody(byteBuffer: try await upstreamResponse.body.collect(upTo: length))
            } catch {
                throw UpstreamClient.gatewayError(for: error, upstream: route.upstream, context: context)
            }
        } else {
            body = ResponseBody(asyncSequence: upstreamResponse.body)
        }
        return Response(
            status: .init(code: Int(upstreamResponse.status.code), reasonPhrase: upstreamResponse.status.reasonPhrase),
            headers: headers, body: body)
    }

    /// The request as its upstream gets it, addressed by path and query (`UpstreamClient` adds the address).
    private func makeUpstreamRequest(_ request: Request, maxBodyBytes: Int, context: Context) async throws -> HTTPClientRequest {
        var upstream = HTTPClientRequest(url: request.uri.description)
        upstream.method = .init(rawValue: request.method.rawValue)
        for field in request.headers {
            let name = field.name.canonicalName
            if ProxyHeaders.hopByHop.contains(name) || ProxyHeaders.identity.contains(name) || name == "x-request-id" { continue }
            if name == "cookie", context.route?.upstream != Self.sessionUpstream {
                // The session cookies hold the tokens: only auth, which issues them, sees them (the others get X-User-Id).
                if let kept = SessionCookies.withoutSession(field.value) { upstream.headers.add(name: field.name.rawName, value: kept) }
                continue
            }
            upstream.headers.add(name: field.name.rawName, value: field.value)
        }
        UpstreamClient.setGatewayHeaders(on: &upstream.headers, for: request, context: context)
        if request.method != .get && request.method != .head {
            if let declared = request.headers[.contentLength].flatMap(Int.init), declared > maxBodyBytes {
                throw APIError(.contentTooLarge, code: "payload_too_large", message: "The request body is larger than \(maxBodyBytes) bytes.")
            }
            let body = try await request.body.collect(upTo: maxBodyBytes)
            upstream.body = .bytes(body)
        }
        return upstream
    }
}

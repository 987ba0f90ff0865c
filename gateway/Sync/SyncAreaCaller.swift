import AsyncHTTPClient
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import NIOHTTP1
import ServiceDefaults

/// Calls the area services for the routes the gateway composes, with the caller's identity as the proxy passes it
/// (`GatewayHeaders`: request id, `X-User-Id`, `X-Session-Id`, client address) and the client's
/// trace context, through the same client span, retry and failure mapping as the proxy.
struct SyncAreaCaller: Sendable {
    /// Where each area is served: its upstream's name, as the routes file routes `/api/sync/<area>`.
    let areas: [SyncArea: String]
    let upstreamClient: UpstreamClient
    /// Largest area answer read (a page of 500 meals with their items is well below).
    static let maximumAnswerBytes = 32 * 1024 * 1024

    /// Finds each area's upstream in `routes`; an area without a route is answered 503 when asked.
    init(routes: RouteTable, upstreamClient: UpstreamClient) {
        var areas: [SyncArea: String] = [:]
        for area in SyncArea.allCases {
            if let route = routes.route(for: Substring(area.pathPrefix)), upstreamClient.serves(route.upstream) {
                areas[area] = route.upstream
            }
        }
        self.areas = areas
        self.upstreamClient = upstreamClient
    }

    /// Headers of the client's request passed to the areas as they came: trace context (replaced by the client span
    /// while tracing is on) and the import's replay key.
    static let passedHeaders = ["traceparent", "tracestate", "Idempotency-Key", "Accept-Language"]

    /// Sends `method` `pathAndQuery` (below the area's prefix, e.g. `/changes?since=0&limit=100`) to `area` for the
    /// client request `request`, and reads the answer whole. Failing to get an answer throws the proxy's 502/503/504.
    func call(
        _ area: SyncArea, _ method: HTTPMethod, _ pathAndQuery: String, body: ByteBuffer? = nil, request: Request,
        context: GatewayRequestContext
    ) async throws -> SyncAreaAnswer {
        guard let upstream = areas[area] else {
            context.logger.error("no route for the sync area", metadata: ["area": .string(area.rawValue)])
            throw UpstreamClient.unavailable(area.rawValue)
        }
        var upstreamRequest = HTTPClientRequest(url: area.pathPrefix + pathAndQuery)
        upstreamRequest.method = method
        for name in Self.passedHeaders {
            if let fieldName = HTTPField.Name(name), let value = request.headers[fieldName] {
                upstreamRequest.headers.add(name: name, value: value)
            }
        }
        GatewayHeaders.copy(from: request.headers, to: &upstreamRequest.headers)
        upstreamRequest.headers.add(name: "Accept", value: "application/json")
        if let body {
            upstreamRequest.headers.add(name: "Content-Type", value: "application/json")
            upstreamRequest.body = .bytes(body)
        }
        let response = try await upstreamClient.send(upstreamRequest, upstream: upstream, context: context)
        let answer: ByteBuffer
        do {
            answer = try await response.body.collect(upTo: Self.maximumAnswerBytes)
        } catch {
            throw UpstreamClient.gatewayError(for: error, upstream: upstream, context: context)
        }
        return SyncAreaAnswer(area: area, upstream: upstream, status: response.status, headers: response.headers, body: answer)
    }

    /// Calls every area of `areas` at once with what `call` makes of it and returns each one's answer or error,
    /// so the composition decides with all of them in hand (never a partial answer).
    func callEach(
        _ areas: [SyncArea], _ call: @escaping @Sendable (SyncArea) async throws -> SyncAreaAnswer
    ) async -> [SyncArea: Result<SyncAreaAnswer, any Error>] {
        await ConcurrentCalls.results(for: areas, call)
    }
}

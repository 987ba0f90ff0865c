import AccessTokens
import AsyncHTTPClient
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import MetricsTestKit
import NIOPosix
import Testing

@testable import Gateway

extension UpstreamProxyTests {
    @Test("a proxied request is counted under its route's prefix: never Unknown, never the raw path")
    func proxiedRouteLabel() async throws {
        let metrics = TestMetrics()
        try await withGateway(metrics: metrics) { gateway in
            try await gateway.execute(uri: "/api/meals/echo?limit=5", method: .get) { response in
                #expect(response.status == .ok)
            }
            try await gateway.execute(uri: "/api/down/7f1c0e2a", method: .get) { response in
                #expect(response.status == .serviceUnavailable)
            }
        }
        let routes = Set(metrics.counters(label: "hb.requests.total").compactMap { $0.dimensions.first { $0.0 == "http.route" }?.1 })
        #expect(routes == ["/api/meals", "/api/down"])
        #expect(
            metrics.counterTotal(label: "hb.requests.total", dimensions: [("http.route", "/api/meals"), ("http.response.status_code", "200")]) == 1)
        #expect(metrics.counterTotal(label: "hb.request.errors.total", dimensions: [("http.route", "/api/down"), ("error.type", "503")]) == 1)
    }

    @Test("a rate-limit refusal is counted under its policy, and as a 429 error of its route")
    func rateLimitRefusals() async throws {
        let metrics = TestMetrics()
        try await withGateway(metrics: metrics) { gateway in
            for _ in 1...2 {
                try await gateway.execute(uri: "/api/limited/echo", method: .get) { response in #expect(response.status == .ok) }
            }
            #expect(try metrics.expectCounter("gateway_rate_limit_refusals_total", [("policy", "tight")]).totalValue == 0)
            try await gateway.execute(uri: "/api/limited/echo", method: .get) { response in #expect(response.status == .tooManyRequests) }
        }
        #expect(try metrics.expectCounter("gateway_rate_limit_refusals_total", [("policy", "tight")]).totalValue == 1)
        #expect(metrics.counterTotal(label: "hb.request.errors.total", dimensions: [("http.route", "/api/limited"), ("error.type", "429")]) == 1)
    }
}

@Suite("JWKS refresh failures are counted by reason")
struct JWKSRefreshMetricsTests {
    let tokens = TokenFactory()

    /// An auth service stand-in: `/good` answers the test keys, `/broken` 500, `/garbage` a 200 that is no JWKS.
    func keyServer() -> some ApplicationProtocol {
        let router = Router()
        let jwks = tokens.jwks
        router.get("/good") { _, _ in Response(status: .ok, body: .init(byteBuffer: ByteBuffer(bytes: jwks))) }
        router.get("/broken") { _, _ -> Response in Response(status: .internalServerError) }
        router.get("/garbage") { _, _ in "no keys here" }
        return Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
    }

    func refresh(_ url: String, metrics: TestMetrics, client: HTTPClient) async -> Bool {
        let refresher = JWKSRefresher(
            url: URL(string: url)!, client: client, verifier: AccessTokenVerifier(policy: tokens.policy), interval: .seconds(300),
            minimumGap: .seconds(30), logger: Logger(label: "jwks-test"), metrics: metrics)
        return await refresher.refresh()
    }

    @Test("an error status, an answer without keys and no answer each count once; a good fetch counts nothing")
    func failuresByReason() async throws {
        let metrics = TestMetrics()
        let client = HTTPClient(eventLoopGroup: MultiThreadedEventLoopGroup.singleton)
        do {
            try await keyServer().test(.live) { server in
                let base = "http://127.0.0.1:\(server.port!)"
                #expect(await refresh("\(base)/good", metrics: metrics, client: client))
                #expect(metrics.counters(label: "gateway_jwks_refresh_failures_total").isEmpty)
                #expect(await refresh("\(base)/broken", metrics: metrics, client: client) == false)
                #expect(await refresh("\(base)/garbage", metrics: metrics, client: client) == false)
                #expect(await refresh("http://127.0.0.1:1/.well-known/jwks.json", metrics: metrics, client: client) == false)
            }
        } catch {
            try await client.shutdown()
            throw error
        }
        try await client.shutdown()
        for reason in ["status", "invalid", "unreachable"] {
            #expect(metrics.counterTotal(label: "gateway_jwks_refresh_failures_total", dimensions: [("reason", reason)]) == 1, "\(reason)")
        }
    }
}

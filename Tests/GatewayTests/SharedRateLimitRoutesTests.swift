import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import MetricsTestKit
import Testing

@testable import Gateway

/// Rate limits shared by several gateways through one store (`SharedRateLimiter`, here over `FakeRateLimitStore`),
/// through the whole gateway: the pass-through and the router.
@Suite("Shared rate limits through the gateway")
struct SharedRateLimitRoutesTests {
    let tokens = TokenFactory()

    /// `/api/limited` limited by a fail-closed `auth` policy of 3 per 900 s, `/api/meals` by a leased `user` policy of
    /// 40 per 60 s (per address: the requests carry no token), both proxied to `UpstreamProxyTests`' echo upstream.
    func settings(upstreamPort: Int) throws -> GatewaySettings {
        let upstream = URL(string: "http://127.0.0.1:\(upstreamPort)")!
        return try tokens.settings(
            routes: RouteTable(
                upstreams: ["meals": [upstream]],
                routes: [
                    .init(prefix: "/api/limited", upstream: "meals", isPublic: true, rateLimit: "auth"),
                    .init(prefix: "/api/meals", upstream: "meals", isPublic: true, rateLimit: "user"),
                ],
                rateLimits: [
                    "auth": RateLimitPolicy(name: "auth", limit: 3, windowSeconds: 900, per: .ip, failClosed: true),
                    "user": RateLimitPolicy(name: "user", limit: 40, windowSeconds: 60, per: .ip),
                ]))
    }

    func limiter(_ store: FakeRateLimitStore, metrics: TestMetrics) -> SharedRateLimiter {
        SharedRateLimiter(
            store: store, leasePercent: 5, status: RateLimitStoreStatus(isUp: true, metrics: metrics, logger: Logger(label: "test")),
            policies: ["auth", "user"], metrics: metrics)
    }

    /// Two gateways on `store` in front of one echo upstream.
    func withTwoGateways(
        _ store: FakeRateLimitStore, metrics: TestMetrics = TestMetrics(),
        _ body: @Sendable @escaping (any TestClientProtocol, any TestClientProtocol) async throws -> Void
    ) async throws {
        try await UpstreamProxyTests().echoUpstream().test(.live) { upstream in
            let settings = try settings(upstreamPort: upstream.port!)
            try await tokens.withGateway(settings: settings, metrics: metrics, sharedLimits: limiter(store, metrics: metrics)) { first in
                try await tokens.withGateway(settings: settings, metrics: metrics, sharedLimits: limiter(store, metrics: metrics)) { second in
                    try await body(first, second)
                }
            }
        }
    }

    @Test("two gateways admit a fail-closed policy's limit between them, with the headers of one window")
    func exactAcrossGateways() async throws {
        try await withTwoGateways(FakeRateLimitStore()) { first, second in
            var answers: [(HTTPResponse.Status, String?, String?)] = []
            for gateway in [first, second, first, second, first] {
                try await gateway.execute(uri: "/api/limited/echo", method: .get) { response in
                    answers.append((response.status, response.headers[.rateLimit], response.headers[.retryAfter]))
                }
            }
            #expect(answers.map(\.0) == [.ok, .ok, .ok, .tooManyRequests, .tooManyRequests])
            #expect(answers.map(\.1) == [2, 1, 0, 0, 0].map { "\"auth\";r=\($0);t=900" })
            #expect(answers.map(\.2) == [nil, nil, nil, "900", "900"])
        }
    }

    @Test("a leased policy's requests are counted from the lease, the later ones by the pass-through without the store")
    func leasedThroughPassThrough() async throws {
        let metrics = TestMetrics()
        try await withTwoGateways(FakeRateLimitStore(), metrics: metrics) { first, _ in
            var remaining: [String?] = []
            for _ in 0..<3 {
                try await first.execute(uri: "/api/meals/echo", method: .get) { response in
                    #expect(response.status == .ok)
                    remaining.append(response.headers[.rateLimit])
                }
            }
            #expect(remaining == [39, 38, 37].map { "\"user\";r=\($0);t=60" }, "one window of 40 shared with the other gateway")
        }
        let forwarded = metrics.counterTotal(label: "gateway_pass_through_requests_total", dimensions: [("outcome", "forwarded")])
        #expect(forwarded >= 1, "a request spent from the lease is forwarded by the pass-through")
    }

    @Test("with the store down the fail-closed policy answers 503 in the error shape, the others count per gateway")
    func storeDown() async throws {
        let store = FakeRateLimitStore()
        let metrics = TestMetrics()
        try await withTwoGateways(store, metrics: metrics) { first, _ in
            store.isDown = true
            try await first.execute(uri: "/api/limited/echo", method: .get) { response in
                #expect(response.status == .serviceUnavailable)
                #expect(response.headers[.retryAfter] == "5")
                let body = try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: [String: Any]]
                #expect(body?["error"]?["code"] as? String == "service_unavailable")
                #expect((body?["error"]?["details"] as? [String: String])?["policy"] == "auth")
            }
            try await first.execute(uri: "/api/meals/echo", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.rateLimit] == "\"user\";r=39;t=60", "this gateway's own window")
            }
            try await first.execute(uri: "/health/ready", method: .get) { response in #expect(response.status == .ok) }
            try await first.execute(uri: "/health", method: .get) { response in
                let report = try JSONDecoder().decode(GatewayHealthController.Report.self, from: Data(buffer: response.body))
                #expect(report.services["rate-limit-store"] == "degraded")
                #expect(report.services["gateway"] == "degraded")
            }
        }
        #expect(try metrics.expectCounter("gateway_rate_limit_fallback_total", [("policy", "auth")]).totalValue == 1)
        #expect(try metrics.expectCounter("gateway_rate_limit_fallback_total", [("policy", "user")]).totalValue == 1)
    }
}

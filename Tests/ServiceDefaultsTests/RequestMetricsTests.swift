import Foundation
import Hummingbird
import HummingbirdTesting
import MetricsTestKit
import ServiceDefaults
import Testing

@Suite("Request metrics: every answer counted and timed by route, errors by the status the client got")
struct RequestMetricsTests {
    let router = ServiceRouterTests()

    func requests(_ metrics: TestMetrics, route: String, status: Int) -> Int64 {
        metrics.counterTotal(label: "hb.requests.total", dimensions: [("http.route", route), ("http.response.status_code", String(status))])
    }

    func errors(_ metrics: TestMetrics, route: String, status: Int) -> Int64 {
        metrics.counterTotal(label: "hb.request.errors.total", dimensions: [("http.route", route), ("error.type", String(status))])
    }

    func timed(_ metrics: TestMetrics, route: String, status: Int) -> Int {
        metrics.timers(label: "http.server.request.duration", dimensions: [("http.route", route), ("http.response.status_code", String(status))])
            .map(\.values.count).reduce(0, +)
    }

    @Test("a handler's error is counted in hb.request.errors.total with the status of the error shape the client got, and timed")
    func handlerErrorsAreCounted() async throws {
        let metrics = TestMetrics()
        try await router.makeApp(checks: [], metrics: metrics).test(.router) { client in
            for (uri, status) in [("/invalid", 422), ("/database-restarting", 503), ("/boom", 500)] {
                try await client.execute(uri: uri, method: .get) { response in
                    #expect(response.status.code == status)
                    let body = try JSONDecoder().decode(ErrorBody.self, from: Data(buffer: response.body))
                    #expect(body.error.requestId == response.headers[.requestId])
                }
                #expect(errors(metrics, route: uri, status: status) == 1, "\(uri)")
                #expect(requests(metrics, route: uri, status: status) == 1, "\(uri)")
                #expect(timed(metrics, route: uri, status: status) == 1, "\(uri)")
            }
        }
    }

    @Test("an unknown path counts as route NotFound with 404, never under its raw path")
    func unknownPath() async throws {
        let metrics = TestMetrics()
        try await router.makeApp(checks: [], metrics: metrics).test(.router) { client in
            try await client.execute(uri: "/meals/123e4567-e89b-12d3-a456-426614174000", method: .get) { response in
                #expect(response.status == .notFound)
            }
        }
        #expect(errors(metrics, route: "NotFound", status: 404) == 1)
        #expect(
            metrics.counters(label: "hb.requests.total").allSatisfy { counter in
                !counter.dimensions.contains { $0.1.contains("123e4567") }
            })
    }

    @Test("a successful answer is counted and timed under its route pattern and adds no error series")
    func successIsNoError() async throws {
        let metrics = TestMetrics()
        try await router.makeApp(checks: [], metrics: metrics).test(.router) { client in
            try await client.execute(uri: "/health/live", method: .get) { response in
                #expect(response.status == .ok)
            }
        }
        #expect(requests(metrics, route: "/health/live", status: 200) == 1)
        #expect(timed(metrics, route: "/health/live", status: 200) == 1)
        #expect(metrics.counters(label: "hb.request.errors.total").isEmpty)
        let active = try metrics.expectMeter("http.server.active_requests", [("http.request.method", "GET")])
        #expect(active.lastValue == 0)
    }
}

import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import MetricsTestKit
import NIOCore
import ServiceDefaults
import Testing

@testable import Gateway

/// Two real replicas of one upstream behind one live gateway, through the pass-through (`true`) and through the
/// router (`false`): how requests spread, and what clients see when a replica stops or turns unready.
@Suite("Gateway balancing across replicas")
struct UpstreamBalancingTests {
    let tokens = TokenFactory()

    /// A gateway whose `meals` upstream has an address on each of `ports`.
    func settings(_ ports: [Int], probeInterval: Duration = .seconds(60)) throws -> GatewaySettings {
        let routes = RouteTable(
            upstreams: ["meals": ports.map { URL(string: "http://127.0.0.1:\($0)")! }],
            routes: [.init(prefix: "/api/meals", upstream: "meals", isPublic: true)])
        var settings = try tokens.settings(routes: routes)
        settings.probing = UpstreamProbing(interval: probeInterval, timeout: .milliseconds(500))
        return settings
    }

    /// Waits until `condition` holds, checking every 20 ms for at most 10 s.
    func eventually(_ what: Comment, _ condition: () throws -> Bool) async throws {
        for _ in 0..<500 {
            if try condition() { return }
            try await Task.sleep(for: .milliseconds(20))
        }
        Issue.record("never happened: \(what)")
    }

    /// Sends `count` requests one after the other and returns who answered each; every one must be a 200.
    func answers(_ gateway: any TestClientProtocol, _ count: Int, methods: [HTTPRequest.Method] = [.get]) async throws -> [String] {
        var answeredBy: [String] = []
        for index in 0..<count {
            let method = methods[index % methods.count]
            let body = method == .get ? nil : ByteBuffer(string: #"{"name":"toast"}"#)
            let name = try await gateway.execute(uri: "/api/meals/today", method: method, body: body) { response in
                #expect(response.status == .ok, "\(method) answered \(response.status)")
                return String(buffer: response.body)
            }
            answeredBy.append(name)
        }
        return answeredBy
    }

    func availableAddresses(_ metrics: TestMetrics) throws -> Double? {
        try metrics.expectGauge("gateway_upstream_available_addresses", [("upstream", "meals")]).lastValue
    }

    @Test("requests one after the other alternate between the two replicas")
    func spread() async throws {
        let metrics = TestMetrics()
        let replicas = [try await ReplicaUpstream.start(name: "a"), try await ReplicaUpstream.start(name: "b")]
        try await tokens.withGateway(settings: settings(replicas.map(\.port)), metrics: metrics) {
            gateway in
            let answeredBy = try await answers(gateway, 10)
            #expect(answeredBy.filter { $0 == "a" }.count == 5)
            #expect(answeredBy.filter { $0 == "b" }.count == 5)
        }
        let forwarded = metrics.counterTotal(label: "gateway_pass_through_requests_total", dimensions: [("outcome", "forwarded")])
        #expect(forwarded == 10, "every request went through the pass-through")
        for replica in replicas { try await replica.stop() }
    }

    @Test("with one replica stopped every request, writes too, is answered by the other")
    func stoppedReplica() async throws {
        let metrics = TestMetrics()
        let a = try await ReplicaUpstream.start(name: "a")
        let b = try await ReplicaUpstream.start(name: "b")
        try await tokens.withGateway(settings: settings([a.port, b.port]), metrics: metrics) {
            gateway in
            // After the first round of probes the next is a minute away: only the refused connection can eject b.
            try await eventually("both replicas probed") { a.probes > 0 && b.probes > 0 }
            try await b.stop()
            let answeredBy = try await answers(gateway, 6, methods: [.post, .put, .get])
            #expect(answeredBy == Array(repeating: "a", count: 6))
        }
        let bAddress = "127.0.0.1:\(b.port)"
        let retries = try metrics.expectCounter(
            "gateway_upstream_retries_total", [("upstream", "meals"), ("address", bAddress), ("reason", "connect")])
        #expect(retries.totalValue == 1, "the one request that went to b was sent to a instead")
        let ejections = try metrics.expectCounter(
            "gateway_upstream_ejections_total", [("upstream", "meals"), ("address", bAddress), ("reason", "connect")])
        #expect(ejections.totalValue == 1)
        try await a.stop()
    }

    @Test("a replica whose readiness answers 503 gets no requests, and gets them again once it answers 200")
    func unreadyReplica() async throws {
        let metrics = TestMetrics()
        let a = try await ReplicaUpstream.start(name: "a")
        let b = try await ReplicaUpstream.start(name: "b")
        b.setReady(false)
        try await tokens.withGateway(
            settings: settings([a.port, b.port], probeInterval: .milliseconds(50)), metrics: metrics
        ) { gateway in
            try await eventually("b ejected") { try availableAddresses(metrics) == 1 }
            #expect(try await answers(gateway, 6) == Array(repeating: "a", count: 6))
            #expect(b.requests == 0)
            b.setReady(true)
            try await eventually("b back in rotation") { try availableAddresses(metrics) == 2 }
            #expect(Set(try await answers(gateway, 6)) == ["a", "b"])
        }
        #expect(b.requests == 3)
        for replica in [a, b] { try await replica.stop() }
    }

    @Test("a lone upstream that refuses connections is a 503 upstream_unavailable in the error shape")
    func loneRefusingUpstream() async throws {
        let gone = try #require(ReservedPort())
        try await tokens.withGateway(settings: settings([gone.port])) { gateway in
            for method in [HTTPRequest.Method.get, .post] {
                let body = method == .get ? nil : ByteBuffer(string: "{}")
                try await gateway.execute(uri: "/api/meals/today", method: method, body: body) { response in
                    #expect(response.status == .serviceUnavailable)
                    #expect(response.headers[.retryAfter] == "2")
                    let error = try JSONDecoder().decode(ErrorBody.self, from: Data(buffer: response.body)).error
                    #expect(error.code == "upstream_unavailable")
                    #expect(error.requestId == response.headers[.requestId])
                }
            }
        }
    }

    @Test("/health shows an upstream ready while one of its replicas is, and unreachable (503) once none answers")
    func healthAcrossReplicas() async throws {
        let a = try await ReplicaUpstream.start(name: "a")
        let b = try await ReplicaUpstream.start(name: "b")
        try await b.stop()
        try await tokens.withGateway(settings: settings([a.port, b.port])) { gateway in
            try await gateway.execute(uri: "/health", method: .get) { response in
                let report = try JSONDecoder().decode(GatewayHealthController.Report.self, from: Data(buffer: response.body))
                #expect(report.services["meals"] == "ready")
                #expect(response.status == .ok)
            }
            try await a.stop()
            try await gateway.execute(uri: "/health", method: .get) { response in
                let report = try JSONDecoder().decode(GatewayHealthController.Report.self, from: Data(buffer: response.body))
                #expect(report.services["meals"] == "unreachable")
                #expect(response.status == .serviceUnavailable)
            }
        }
    }
}

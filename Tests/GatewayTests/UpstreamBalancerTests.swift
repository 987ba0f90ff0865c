import Foundation
import Logging
import MetricsTestKit
import Testing

@testable import Gateway

/// `UpstreamBalancer` alone: which address each request gets, ejection and return, and what happens when every
/// address is out. Addresses are 0, 1 and 2 by their position in the upstream's list.
@Suite("Upstream balancer")
struct UpstreamBalancerTests {
    let metrics = TestMetrics()

    func balancer(addresses: Int) -> UpstreamBalancer {
        UpstreamBalancer(
            name: "meals", urls: (0..<addresses).map { URL(string: "http://10.0.0.\($0 + 1):8082")! }, metrics: metrics,
            logger: Logger(label: "balancer-test"))
    }

    /// The address of `count` requests that each end before the next starts.
    func sequential(_ balancer: UpstreamBalancer, _ count: Int) -> [Int] {
        (0..<count).map { _ in
            let lease = balancer.lease()!
            lease.finish()
            return lease.index
        }
    }

    @Test("a request goes to the address with the fewest requests in flight")
    func leastOutstanding() throws {
        let balancer = balancer(addresses: 3)
        let first = try #require(balancer.lease())
        let second = try #require(balancer.lease())
        let third = try #require(balancer.lease())
        #expect([first.index, second.index, third.index].sorted() == [0, 1, 2], "each address takes one of three concurrent requests")
        second.finish()
        let next = try #require(balancer.lease())
        #expect(next.index == second.index, "the address that answered is the only one with nothing in flight")
        let gauge = try metrics.expectGauge("gateway_upstream_in_flight", [("upstream", "meals"), ("address", "10.0.0.1:8082")])
        #expect(gauge.lastValue == 1)
    }

    @Test("requests that never overlap alternate between the addresses")
    func tiesSpread() {
        #expect(sequential(balancer(addresses: 2), 6) == [0, 1, 0, 1, 0, 1])
        #expect(Set(sequential(balancer(addresses: 3), 3)) == [0, 1, 2])
    }

    @Test("an address that refused a connection gets nothing until its readiness answers again")
    func ejectedUntilProbedBack() throws {
        let balancer = balancer(addresses: 2)
        let refused = try #require(balancer.lease())
        refused.finish(connectFailed: true)
        let other = 1 - refused.index
        #expect(sequential(balancer, 4) == [other, other, other, other])
        #expect(balancer.availableCount == 1)
        let ejections = try metrics.expectCounter(
            "gateway_upstream_ejections_total", [("upstream", "meals"), ("address", refused.endpoint.label), ("reason", "connect")])
        #expect(ejections.totalValue == 1)
        #expect(try metrics.expectGauge("gateway_upstream_available_addresses", [("upstream", "meals")]).lastValue == 1)

        balancer.probed(refused.index, ready: false)
        #expect(ejections.totalValue == 1, "a probe of an address already out does not count another ejection")
        balancer.probed(refused.index, ready: true)
        #expect(Set(sequential(balancer, 2)) == [0, 1])
        #expect(try metrics.expectGauge("gateway_upstream_available_addresses", [("upstream", "meals")]).lastValue == 2)
    }

    @Test("an address whose readiness fails is out of rotation, and back when it answers 2xx")
    func probedOut() {
        let balancer = balancer(addresses: 2)
        balancer.probed(0, ready: false)
        #expect(sequential(balancer, 3) == [1, 1, 1])
        #expect(balancer.availableCount == 1)
        balancer.probed(0, ready: true)
        #expect(Set(sequential(balancer, 2)) == [0, 1])
    }

    @Test("a probe that started before a refused connection does not put the address back; the next probe does")
    func probeOlderThanTheFailure() throws {
        let balancer = balancer(addresses: 2)
        let mark = balancer.failureMark
        let lease = try #require(balancer.lease())
        lease.finish(connectFailed: true)
        #expect(balancer.availableCount == 1)
        balancer.probed(lease.index, ready: true, since: mark)
        #expect(balancer.availableCount == 1, "the probe's 200 was older than the refusal")
        balancer.probed(lease.index, ready: true, since: balancer.failureMark)
        #expect(balancer.availableCount == 2)
    }

    @Test(
        "with every address out, a request still goes to the one with the fewest in flight that failed longest ago, then to each other once"
    )
    func allEjected() throws {
        let balancer = balancer(addresses: 3)
        balancer.probed(1, ready: false)
        balancer.probed(2, ready: false)
        balancer.probed(0, ready: false)
        balancer.probed(1, ready: false)
        #expect(balancer.availableCount == 0)
        let first = try #require(balancer.lease())
        #expect(first.index == 1, "failed first; its later failed probes do not move it back")
        first.finish(connectFailed: true)
        let second = try #require(balancer.lease(excluding: [1]))
        #expect(second.index == 2)
        let third = try #require(balancer.lease(excluding: [1, 2]))
        #expect(third.index == 0)
        #expect(balancer.lease(excluding: [0, 1, 2]) == nil, "every address tried: the caller answers 503")
        second.finish()
        third.finish()
        #expect(balancer.lease()?.index == 2, "the refused connection put address 1 last")
        #expect(balancer.lease()?.index == 0, "with a request in flight at address 2, the next goes where none is")
    }
}

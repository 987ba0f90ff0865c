import Foundation
import Logging
import Metrics
import Synchronization

/// The addresses of one upstream service and which of them take requests, shared by the router path
/// (`UpstreamClient`) and the pass-through (`PassThroughHandler`), so both count into one view of the upstream.
///
/// - **Choice:** least outstanding requests: the address with the fewest requests in flight (leased and not yet
///   finished) among those in rotation; ties go round-robin, starting after the address chosen last, so an idle
///   upstream's sequential requests alternate.
/// - **Ejection:** an address that could not be connected to is out of rotation at once (`UpstreamLease.finish`);
///   one whose readiness answers non-2xx or not in time is out after that probe. Only a probe answering 2xx brings an
///   address back (`UpstreamReadinessProber`).
/// - **All ejected:** the request still goes to an address, the one with the fewest requests in flight and, among
///   those, the one that failed longest ago first (and, when it cannot
///   be connected to either, to the next). A lone replica that restarts is then reached as soon as it listens, not a
///   probe later, and one that answers for itself (its own 503 with the reason) says more than a gateway 503 would;
///   when none accepts a connection the client gets 503 `upstream_unavailable` after one connect attempt per address.
final class UpstreamBalancer: Sendable {
    let name: String
    let endpoints: [UpstreamEndpoint]
    let metrics: UpstreamBalancerMetrics
    private let state: Mutex<State>
    private let logger: Logger

    private struct State {
        var inFlight: [Int]
        var ejected: [Bool]
        /// When each address last failed, as a count of failures (0: never); orders the ejected ones.
        var failedAt: [UInt64]
        var failures: UInt64 = 0
        /// Where the search for the least loaded address starts: just after the one chosen last.
        var start = 0
    }

    /// A balancer over `urls`, every one in rotation, counting into `metrics` under the upstream `name`.
    init(name: String, urls: [URL], metrics: any MetricsFactory, logger: Logger) {
        self.name = name
        self.endpoints = urls.map(UpstreamEndpoint.init(url:))
        self.metrics = UpstreamBalancerMetrics(upstream: name, endpoints: endpoints, factory: metrics)
        self.state = Mutex(State(inFlight: urls.map { _ in 0 }, ejected: urls.map { _ in false }, failedAt: urls.map { _ in 0 }))
        self.logger = logger
        self.metrics.available.record(urls.count)
    }

    /// A balancer for every upstream of `routes`.
    static func all(for routes: RouteTable, metrics: any MetricsFactory, logger: Logger) -> [String: UpstreamBalancer] {
        Dictionary(
            uniqueKeysWithValues: routes.upstreams.map { name, urls in
                (name, UpstreamBalancer(name: name, urls: urls, metrics: metrics, logger: logger))
            })
    }

    /// Leases the address for the next attempt of a request that has already tried the addresses at `tried`
    /// (positions in `endpoints`); nil when it has tried them all.
    func lease(excluding tried: [Int] = []) -> UpstreamLease? {
        state.withLock { state -> UpstreamLease? in
            let count = endpoints.count
            var chosen: Int?
            for step in 0..<count {
                let index = (state.start + step) % count
                guard !state.ejected[index], !tried.contains(index) else { continue }
                if let best = chosen, state.inFlight[best] <= state.inFlight[index] { continue }
                chosen = index
            }
            if chosen == nil {
                // Every address is ejected: the fewest in flight, then the one that failed longest ago, so that one replica
                // that answers again is reached at once, and a blip that ejected all of them does not pile onto one.
                for index in 0..<count where !tried.contains(index) {
                    if let best = chosen,
                        (state.inFlight[best], state.failedAt[best]) <= (state.inFlight[index], state.failedAt[index])
                    {
                        continue
                    }
                    chosen = index
                }
            }
            guard let index = chosen else { return nil }
            state.start = (index + 1) % count
            state.inFlight[index] += 1
            metrics.inFlight[index].record(state.inFlight[index])
            return UpstreamLease(balancer: self, index: index)
        }
    }

    /// Ends `lease`'s attempt (see `UpstreamLease.finish`).
    func finish(_ lease: UpstreamLease, connectFailed: Bool) {
        let ejected = state.withLock { state -> Bool in
            state.inFlight[lease.index] -= 1
            metrics.inFlight[lease.index].record(state.inFlight[lease.index])
            guard connectFailed else { return false }
            return eject(lease.index, reason: .connect, in: &state)
        }
        if ejected { logEjection(lease.index, reason: "it refused or did not accept a connection") }
    }

    /// The count of failures recorded so far: a probe notes it when it starts (`probed(_:ready:since:)`).
    var failureMark: UInt64 { state.withLock { $0.failures } }

    /// Takes what a readiness probe of the address at `index` said: out of rotation when not `ready`, back when `ready`,
    /// unless the address failed after `since` (the `failureMark` when the probe started): a connection it refused
    /// meanwhile is newer news than the probe's answer.
    func probed(_ index: Int, ready: Bool, since: UInt64? = nil) {
        let changed = state.withLock { state -> Bool in
            if !ready { return eject(index, reason: .probe, in: &state) }
            guard state.ejected[index], state.failedAt[index] <= since ?? .max else { return false }
            state.ejected[index] = false
            metrics.available.record(state.ejected.count(where: { !$0 }))
            return true
        }
        guard changed else { return }
        if ready {
            logger.notice("upstream address back in rotation", metadata: ["upstream": .string(name), "address": .string(endpoints[index].label)])
        } else {
            logEjection(index, reason: "its readiness answered non-2xx or not in time")
        }
    }

    /// Addresses in rotation now.
    var availableCount: Int { state.withLock { $0.ejected.count(where: { !$0 }) } }

    /// Records a failure of the address at `index` and takes it out of rotation; whether it was in rotation before.
    private func eject(_ index: Int, reason: UpstreamBalancerMetrics.EjectionReason, in state: inout State) -> Bool {
        // A probe repeats every round while the address stays down: only its first failure orders it among the ejected.
        if reason == .connect || !state.ejected[index] {
            state.failures += 1
            state.failedAt[index] = state.failures
        }
        guard !state.ejected[index] else { return false }
        state.ejected[index] = true
        metrics.ejections(index, reason).increment()
        metrics.available.record(state.ejected.count(where: { !$0 }))
        return true
    }

    private func logEjection(_ index: Int, reason: String) {
        logger.warning(
            "upstream address ejected: \(reason)",
            metadata: ["upstream": .string(name), "address": .string(endpoints[index].label), "available": .stringConvertible(availableCount)])
    }
}

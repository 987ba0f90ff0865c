/// One attempt of one request at one address of an upstream, counted in flight by its balancer until `finish`ed.
/// Finish it exactly once.
struct UpstreamLease: Sendable {
    let balancer: UpstreamBalancer
    /// The address's position in `balancer.endpoints`.
    let index: Int

    /// The address the attempt goes to.
    var endpoint: UpstreamEndpoint { balancer.endpoints[index] }

    /// Ends the attempt: it got its answer's head or failed. `connectFailed` (no connection could be made) ejects the
    /// address at once.
    func finish(connectFailed: Bool = false) {
        balancer.finish(self, connectFailed: connectFailed)
    }

    /// Counts that the request goes to an address again after this attempt failed (`reason`: `connect` when no
    /// connection was made, `closed` when a safe request's connection closed before its answer).
    func countRetry(reason: UpstreamBalancerMetrics.RetryReason) {
        balancer.metrics.retries(index, reason).increment()
    }
}

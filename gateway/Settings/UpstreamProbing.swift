import Configuration

/// How the gateway asks every upstream address's `/health/ready` to eject it or bring it back
/// (`UpstreamReadinessProber`).
struct UpstreamProbing: Sendable {
    /// Pause between two rounds of probes (`GATEWAY_UPSTREAM_PROBE_INTERVAL_SECONDS`, default 1): an address that
    /// turns unready stops getting requests, and one that is ready again gets them, within about this.
    var interval: Duration = .seconds(1)
    /// Time each probe may take before the address counts as not answering
    /// (`GATEWAY_UPSTREAM_PROBE_TIMEOUT_SECONDS`, default 0.5).
    var timeout: Duration = .milliseconds(500)
}

extension UpstreamProbing {
    /// Reads the two settings.
    init(config: ConfigReader) {
        self.interval = .seconds(config.double(forKey: "gateway.upstream.probe.interval.seconds", default: 1))
        self.timeout = .seconds(config.double(forKey: "gateway.upstream.probe.timeout.seconds", default: 0.5))
    }
}

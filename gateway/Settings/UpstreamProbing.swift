import Configuration
import ServiceDefaults

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
    /// Reads the two settings; each must be above zero.
    init(config: ConfigReader) throws {
        let interval = config.double(forKey: "gateway.upstream.probe.interval.seconds", default: 1)
        let timeout = config.double(forKey: "gateway.upstream.probe.timeout.seconds", default: 0.5)
        guard interval > 0 else { throw ConfigurationError.invalid("GATEWAY_UPSTREAM_PROBE_INTERVAL_SECONDS", reason: "must be above 0") }
        guard timeout > 0 else { throw ConfigurationError.invalid("GATEWAY_UPSTREAM_PROBE_TIMEOUT_SECONDS", reason: "must be above 0") }
        self.interval = .seconds(interval)
        self.timeout = .seconds(timeout)
    }
}

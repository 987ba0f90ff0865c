import Configuration
import Foundation
import ServiceDefaults

/// Everything the gateway reads at start; `GATEWAY_*` and `UPSTREAM_<NAME>_URL` variables over the routes file.
struct GatewaySettings: Sendable {
    var http: HTTPServerSettings
    var routes: RouteTable
    /// Time allowed to open a connection to an upstream.
    var connectTimeout: Duration
    /// Time allowed for an upstream's whole answer.
    var upstreamTimeout: Duration
    /// Time allowed for each upstream's readiness answer in `/health`.
    var healthTimeout: Duration
}

extension GatewaySettings {
    /// Reads the settings; the routes file is required.
    init(config: ConfigReader) throws {
        self.http = HTTPServerSettings(config: config, defaultPort: 8080)
        let routesFile = config.string(forKey: "gateway.routes.file", default: "deploy/gateway-routes.json")
        var routes = try RouteTable.load(from: routesFile)
        for name in routes.upstreams.keys {
            if let override = config.string(forKey: ConfigKey(["upstream", name, "url"])) {
                guard let url = URL(string: override) else {
                    throw ConfigurationError.invalid("UPSTREAM_\(name.uppercased())_URL", reason: "not a URL")
                }
                routes.upstreams[name] = url
            }
        }
        self.routes = routes
        self.connectTimeout = .seconds(config.double(forKey: "gateway.connect.timeout.seconds", default: 2))
        self.upstreamTimeout = .seconds(config.double(forKey: "gateway.upstream.timeout.seconds", default: 30))
        self.healthTimeout = .seconds(config.double(forKey: "gateway.health.timeout.seconds", default: 2))
    }
}

import Configuration
import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import Metrics
import ServiceDefaults
import Testing

@Suite("Admin server: /metrics apart from the public port, on loopback by default")
struct AdminServerTests {
    func config(_ values: [String: ConfigValue]) -> ConfigReader {
        var content: [AbsoluteConfigKey: ConfigValue] = [:]
        for (key, value) in values { content[AbsoluteConfigKey(key.split(separator: ".").map(String.init))] = value }
        return ConfigReader(provider: InMemoryProvider(values: content))
    }

    @Test("the admin port defaults to the public port + 1000 on loopback; ADMIN_HOST and ADMIN_PORT override it")
    func settings() throws {
        let auth = try HTTPServerSettings(config: config([:]), defaultPort: 8081)
        #expect(auth.admin == AdminServerSettings(host: "127.0.0.1", port: 9081))
        let moved = try HTTPServerSettings(config: config(["http.port": .init(.int(28082), isSecret: false)]), defaultPort: 8082)
        #expect(moved.admin.port == 29082)
        let set = try HTTPServerSettings(
            config: config(["admin.host": .init(.string("10.0.0.7"), isSecret: false), "admin.port": .init(.int(7000), isSecret: false)]),
            defaultPort: 8080)
        #expect(set.admin == AdminServerSettings(host: "10.0.0.7", port: 7000))
        let tests = try HTTPServerSettings(config: config([:]), defaultPort: 0)
        #expect(tests.admin.port == 0)
    }

    @Test("a public port above 64535 needs ADMIN_PORT, and ADMIN_PORT must be a port")
    func invalidSettings() throws {
        #expect(throws: ConfigurationError.self) {
            try HTTPServerSettings(config: config(["http.port": .init(.int(65000), isSecret: false)]), defaultPort: 8080)
        }
        #expect(throws: ConfigurationError.self) {
            try HTTPServerSettings(config: config(["admin.port": .init(.int(70000), isSecret: false)]), defaultPort: 8080)
        }
    }

    @Test("the admin server answers /metrics in the Prometheus text format on a port of its own")
    func servesMetrics() async throws {
        PrometheusMetrics.bootstrap()  // as `ServiceRuntime.main` does at process start
        let admin = AdminServer.makeApplication(settings: AdminServerSettings(port: 0), service: "demo", logger: Logger(label: "admin-test"))
        try await ServiceRouterTests().makeApp(checks: [], metrics: MetricsSystem.factory).test(.router) { client in
            try await client.execute(uri: "/health/live", method: .get) { _ in }
        }
        try await admin.test(.live) { client in
            try await client.execute(uri: "/metrics", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType]?.hasPrefix("text/plain") == true)
                #expect(String(buffer: response.body).contains(#"hb_requests{http_route="/health/live""#))
            }
            try await client.execute(uri: "/health/live", method: .get) { response in
                #expect(response.status == .notFound)
            }
        }
    }
}

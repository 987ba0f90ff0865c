import Configuration
import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import Metrics
import ServiceDefaults
import TestSupport
import Testing

@Suite("Admin server: /metrics apart from the public port, on loopback by default")
struct AdminServerTests {
    @Test("the admin port defaults to the public port + 1000 on loopback; ADMIN_HOST and ADMIN_PORT override it")
    func settings() throws {
        let auth = try HTTPServerSettings(config: ConfigReaderFactory.make([:]), defaultPort: 8081)
        #expect(auth.admin == AdminServerSettings(host: "127.0.0.1", port: 9081))
        let moved = try HTTPServerSettings(config: ConfigReaderFactory.make(["http.port": "28082"]), defaultPort: 8082)
        #expect(moved.admin.port == 29082)
        let set = try HTTPServerSettings(config: ConfigReaderFactory.make(["admin.host": "10.0.0.7", "admin.port": "7000"]), defaultPort: 8080)
        #expect(set.admin == AdminServerSettings(host: "10.0.0.7", port: 7000))
        let tests = try HTTPServerSettings(config: ConfigReaderFactory.make([:]), defaultPort: 0)
        #expect(tests.admin.port == 0)
    }

    @Test("a public port above 64535 needs ADMIN_PORT, and ADMIN_PORT must be a port")
    func invalidSettings() throws {
        #expect(throws: ConfigurationError.self) {
            try HTTPServerSettings(config: ConfigReaderFactory.make(["http.port": "65000"]), defaultPort: 8080)
        }
        #expect(throws: ConfigurationError.self) {
            try HTTPServerSettings(config: ConfigReaderFactory.make(["admin.port": "70000"]), defaultPort: 8080)
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
                #expect(String(buffer: response.body).contains(#"hb_requests_total{http_route="/health/live""#))
            }
            try await client.execute(uri: "/health/live", method: .get) { response in
                #expect(response.status == .notFound)
            }
        }
    }
}

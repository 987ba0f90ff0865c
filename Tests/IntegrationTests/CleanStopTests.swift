import BackendKit
import Foundation
import ServiceDefaults
import Testing

/// Every process of the stack, started as its own executable, exposes metrics that `promtool check metrics` finds
/// nothing wrong with (`MetricsLint`), and stops at SIGTERM with exit status 0 while its clients hold connections open
/// on its public and admin ports: idle after an answer, silent, a half-sent head, a half-sent body, and readers that do
/// not read their answers. Before `DrainingServer`, such a connection kept the server open past the drain, and the
/// gateway ended on `ServiceGroup`'s fatal error (signal 4). That it exits within its drain timeout is measured by the
/// fault run, with the same connections held (deploy/faults.d/faultrun/held.py): tests assert no wall-clock time.
@Suite(
    "Each executable: metrics promtool accepts, and a clean stop at SIGTERM whatever clients hold open", .enabled(if: TestEnvironment.isAvailable),
    .serialized)
struct CleanStopTests {
    /// The drain timeout the processes get here: short, so that the test does not wait long for a process that overstays it.
    static let drainTimeout = Duration.seconds(6)
    /// How long the test waits for the exit before it kills the process and fails: far past the drain timeout, so a
    /// loaded machine's slowness is not taken for a process that does not stop.
    static let exitWait = Duration.seconds(60)

    @Test(
        "each process's /metrics passes promtool, and it exits with status 0 at SIGTERM while clients hold connections open",
        arguments: ["auth", "meals", "metrics", "trends", "sharing", "gateway"])
    func stopsCleanly(part: String) async throws {
        let upstream = try SilentUpstream()
        let process = try SpawnedProcess(
            try Self.executable(of: part), environment: try await Self.environment(of: part, upstream: upstream),
            log: FileManager.default.temporaryDirectory.appendingPathComponent("clean-stop-\(part)-\(UUID()).log"))
        guard let ports = try await process.listeningPorts(within: .seconds(120)) else {
            _ = await process.terminate(waitingAtMost: .seconds(1))
            Issue.record("\(part) did not listen on both ports:\n\(process.output.suffix(3000))")
            return
        }

        let findings = try await MetricsLint.problems(publicPort: ports.public, adminPort: ports.admin)
        #expect(findings.isEmpty, "promtool check metrics on \(part)'s /metrics:\n\(findings.joined(separator: "\n"))")

        let idlePublic = try HeldConnection(port: ports.public)
        try idlePublic.send(Self.get("/health/live"))
        let publicAnswer = try idlePublic.readAnswer()
        #expect(publicAnswer == 200)
        let idleAdmin = try HeldConnection(port: ports.admin)
        try idleAdmin.send(Self.get("/metrics"))
        let adminAnswer = try idleAdmin.readAnswer()
        #expect(adminAnswer == 200)
        let silent = [try HeldConnection(port: ports.public), try HeldConnection(port: ports.admin)]
        let halfHead = try HeldConnection(port: ports.public)
        try halfHead.send("GET /health/live HTTP/1.1\r\nHost: test\r\n")
        let halfBody = try HeldConnection(port: ports.public)
        try halfBody.send(
            "POST \(Self.bodyPath(of: part)) HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\nContent-Length: 4096\r\n"
                + "X-User-Id: \(UUID().uuidString.lowercased())\r\n\r\n{\"date\": ")
        let slowPublic = try HeldConnection(port: ports.public, receiveBuffer: 4096)
        let publicRequests = try slowPublic.sendUntilHeldBack(Self.get(part == "gateway" ? "/openapi.json" : "/health/live"))
        #expect(publicRequests > 0)
        let slowAdmin = try HeldConnection(port: ports.admin, receiveBuffer: 4096)
        let adminRequests = try slowAdmin.sendUntilHeldBack(Self.get("/metrics"))
        #expect(adminRequests > 0)

        let (exit, after) = await process.terminate(waitingAtMost: Self.exitWait)
        withExtendedLifetime((upstream, idlePublic, idleAdmin, silent, halfHead, halfBody, slowPublic, slowAdmin)) {}
        #expect(exit == .status(0), "\(part): \(exit) \(after) after SIGTERM; its log ends:\n\(process.output.suffix(3000))")
    }

    static func get(_ path: String) -> String { "GET \(path) HTTP/1.1\r\nHost: test\r\n\r\n" }

    /// A route of `part` that reads a request body (trends has none: its POST is answered without reading one).
    static func bodyPath(of part: String) -> String {
        switch part {
        case "auth", "gateway": "/api/auth/login"
        case "meals": "/api/meals"
        case "metrics": "/api/metrics/weight"
        case "sharing": "/api/share/meal/\(UUID().uuidString.lowercased())"
        default: "/api/trends"
        }
    }

    /// The executable of `part`, built beside the test bundle (`swift build` builds every product).
    static func executable(of part: String) throws -> URL {
        let products = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        let name = part == "gateway" ? "Gateway" : "\(part.prefix(1).uppercased())\(part.dropFirst())Service"
        let executable = products.appendingPathComponent(name)
        guard FileManager.default.isExecutableFile(atPath: executable.path) else {
            throw HeldConnection.Failure("no \(name) in \(products.path): build every product first (swift build --build-tests)")
        }
        return executable
    }

    /// The environment `deploy/stack` would give `part`, on the test schemas and ports the kernel picks, with a short
    /// drain; the gateway's auth upstream is `upstream` (it never answers), its other upstreams refuse connections.
    static func environment(of part: String, upstream: SilentUpstream) async throws -> [String: String] {
        var values = [
            "http.port": "0", "http.drain.timeout.seconds": "\(drainTimeout.components.seconds)", "http.shutdown.grace.seconds": "0.2",
            "log.level": "info",
        ]
        if part == "gateway" {
            values["gateway.routes.file"] =
                URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent().appendingPathComponent("deploy/gateway-routes.json").path
            for name in ["meals", "metrics", "trends", "sharing"] { values["upstream.\(name).url"] = "http://127.0.0.1:9" }
            values["upstream.auth.url"] = "http://127.0.0.1:\(upstream.port)"
            values["gateway.jwks.url"] = "http://127.0.0.1:9/.well-known/jwks.json"
            values["gateway.revocations.url"] = "http://127.0.0.1:9/internal/revocations"
        } else {
            values.merge(try await TestServices.config(service: part)) { _, new in new }
            let key = { "itest:\(Base64URL.encode((0..<32).map { _ in UInt8.random(in: .min ... .max) }))" }
            switch part {
            case "auth":
                values["auth.signing.key"] = key()
                values["auth.mail.directory"] = FileManager.default.temporaryDirectory.appendingPathComponent("mail-\(UUID())").path
            case "meals":
                values["meals.food.data.file"] = TestEnvironment.foodDataFile.path
                values["meals.photo.url.key"] = key()
                values["meals.vision.key.encryption.key"] = key()
            case "sharing":
                values["sharing.meals.url"] = "http://127.0.0.1:9"
                values["sharing.public.base.url"] = "http://localhost:9"
            default:
                break
            }
        }
        return Dictionary(uniqueKeysWithValues: values.map { ($0.key.uppercased().replacingOccurrences(of: ".", with: "_"), $0.value) })
    }
}

import BackendKit
import Foundation
import Testing

/// The gateway's API explorer (`/docs`, Swagger UI from the package the setup step installs) as a browser shows it:
/// the real Gateway executable serves it, Debian's Chromium loads it headless, runs its scripts (which fetch
/// `/openapi.json`) and the rendered page lists every operation of the document.
@Suite("API explorer in a browser", .enabled(if: TestEnvironment.isAvailable), .serialized)
struct APIExplorerTests {
    @Test("Chromium renders /docs with every operation of the OpenAPI document listed under its path")
    func everyOperationListed() async throws {
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let swaggerUI =
            ProcessInfo.processInfo.environment["NUTRITION_SWAGGER_UI_DIR"]
            ?? repository.appendingPathComponent(".local/tools/swagger-ui-pkg/swagger_ui/static").path
        let browser = try #require(
            BoundedChildProcess.locate("chromium"), "no chromium on PATH: run `bash deploy/setup.sh browser` (the test command does)")
        let upstream = try SilentUpstream()
        var environment = try await CleanStopTests.environment(of: "gateway", upstream: upstream)
        environment["GATEWAY_DOCS_DIRECTORY"] = swaggerUI
        let gateway = try SpawnedProcess(
            try CleanStopTests.executable(of: "gateway"), environment: environment,
            log: FileManager.default.temporaryDirectory.appendingPathComponent("api-explorer-\(UUID()).log"))
        defer { withExtendedLifetime(upstream) {} }
        guard let ports = try await gateway.listeningPorts(within: .seconds(60)) else {
            _ = await gateway.terminate(waitingAtMost: .seconds(1))
            Issue.record("the gateway did not start:\n\(gateway.output.suffix(3000))")
            return
        }
        let page = try await Self.renderedPage(browser: browser, url: "http://127.0.0.1:\(ports.public)/docs")
        _ = await gateway.terminate(waitingAtMost: .seconds(10))

        let document = try JSONSerialization.jsonObject(with: Data(contentsOf: repository.appendingPathComponent("gateway/Resources/openapi.json")))
        let paths = try #require((document as? [String: Any])?["paths"] as? [String: [String: Any]])
        let methods: Set = ["get", "put", "post", "delete", "patch"]
        var expected: [String] = []
        for (path, operations) in paths { expected += operations.keys.filter(methods.contains).map { _ in path } }
        let listed = Self.listedPaths(in: page)
        #expect(expected.count > 50, "the document has its operations")
        #expect(listed.sorted() == expected.sorted(), "the explorer lists \(listed.count) operations, the document has \(expected.count)")
    }

    /// The DOM of `url` after Chromium ran its scripts (at most 20 s of the page's own time), with what Chromium
    /// wrote to its standard error around it.
    static func renderedPage(browser: URL, url: String) async throws -> String {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("chromium-\(UUID())")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let chromium = try ChildProcess(
            browser.path,
            [
                "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
                "--user-data-dir=\(scratch.appendingPathComponent("profile").path)", "--virtual-time-budget=20000", "--dump-dom", url,
            ], log: scratch.appendingPathComponent("chromium.log"))
        let status = await chromium.exitStatus()
        guard status == 0 else { throw ChildProcess.Failure(program: "chromium", status: status, output: chromium.output) }
        return chromium.output
    }

    /// The path of each operation Swagger UI rendered (`<span class="opblock-summary-path" data-path="...">`).
    static func listedPaths(in page: String) -> [String] {
        page.components(separatedBy: #"class="opblock-summary-path" data-path=""#).dropFirst().compactMap { $0.split(separator: "\"").first }
            .map { String($0).replacingOccurrences(of: "&amp;", with: "&") }
    }
}

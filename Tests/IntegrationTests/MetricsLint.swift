import AsyncHTTPClient
import Foundation

/// `promtool check metrics` (Prometheus's own linter: help text on every metric, counters ending in `_total`, names
/// and label names valid) on what a process's admin port exposes at `/metrics`. The test command passes the promtool
/// that `deploy/setup.sh` unpacks (`NUTRITION_PROMTOOL`); run by hand, the same path in the repository is used.
enum MetricsLint {
    /// The linter's findings on `/metrics` of the admin server at `adminPort` (empty when clean), after a request
    /// answered 200 and one answered 404 on `publicPort`, so that the request metrics and their error counter exist.
    static func problems(publicPort: Int, adminPort: Int) async throws -> [String] {
        let promtool = try promtoolPath()
        for path in ["/health/live", "/no-such-route"] {
            _ = try await HTTPClient.shared.get(url: "http://127.0.0.1:\(publicPort)\(path)").get()
        }
        let answer = try await HTTPClient.shared.get(url: "http://127.0.0.1:\(adminPort)/metrics").get()
        guard answer.status == .ok, let buffer = answer.body else { return ["/metrics answered \(answer.status)"] }
        let body = String(buffer: buffer)
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("metrics-lint-\(UUID())")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let exposition = scratch.appendingPathComponent("metrics.txt")
        try Data(body.utf8).write(to: exposition)
        let linter = try ChildProcess(
            promtool.path, ["check", "metrics"], input: exposition, log: scratch.appendingPathComponent("promtool.log"))
        let status = await linter.exitStatus()
        let lines = linter.output.split(separator: "\n").map(String.init)
        if status != 0 && lines.isEmpty { return ["promtool exited \(status) without a word"] }
        return lines
    }

    private static func promtoolPath() throws -> URL {
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let path =
            ProcessInfo.processInfo.environment["NUTRITION_PROMTOOL"]
            ?? repository.appendingPathComponent(".local/tools/prometheus-pkg/usr/bin/promtool").path
        guard FileManager.default.isExecutableFile(atPath: path) else {
            throw HeldConnection.Failure("no promtool at \(path): run `bash deploy/setup.sh metrics_linter` (the test command does)")
        }
        return URL(fileURLWithPath: path)
    }
}

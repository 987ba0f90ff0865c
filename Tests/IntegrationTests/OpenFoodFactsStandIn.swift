import AsyncHTTPClient
import Foundation
import NIOCore
import Testing

/// The Open Food Facts stand-in for one test: `Tests/StandIns/open_food_facts.py` (OFF's API v2 product endpoint
/// over the product documents in `Tests/StandIns/open_food_facts/products`, checking a proper `User-Agent` and OFF's
/// per-minute limit as the real service asks), started with `Process` on loopback and stopped afterwards. Tests set
/// its behaviour (slow, down, 429, garbage, ...) and read what it was asked.
final class OpenFoodFactsStandIn: Sendable {
    /// One product request the stand-in saw.
    struct SeenRequest: Decodable, Sendable {
        var path: String
        var code: String?
        var userAgent: String?
        var fields: String?
    }

    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("StandIns/open_food_facts.py")

    let port: Int
    private let root: URL
    private let process: ChildProcess

    private init(port: Int, root: URL, process: ChildProcess) {
        self.port = port
        self.root = root
        self.process = process
    }

    var baseURL: String { "http://127.0.0.1:\(port)" }

    /// Runs `body` with a started stand-in (at most `perMinute` product reads a minute) and stops it afterwards.
    static func run<T>(perMinute: Int = 100, _ body: (OpenFoodFactsStandIn) async throws -> T) async throws -> T {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("off-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let ready = directory.appendingPathComponent("ready")
        let process = try ChildProcess(
            "python3", [script.path, "--port", "0", "--ready-file", ready.path, "--per-minute", String(perMinute)],
            log: directory.appendingPathComponent("server.log"))
        var started: OpenFoodFactsStandIn?
        let deadline = ContinuousClock.now + .seconds(20)
        while ContinuousClock.now < deadline, started == nil, !process.hasExited {
            if let text = try? String(contentsOf: ready, encoding: .utf8), let port = Int(text.trimmingCharacters(in: .whitespacesAndNewlines)) {
                started = OpenFoodFactsStandIn(port: port, root: directory, process: process)
            } else {
                try await Task.sleep(for: .milliseconds(50))
            }
        }
        guard let standIn = started else {
            await process.stop()
            throw ChildProcess.Failure(
                program: "open_food_facts.py (did not start listening)", status: await process.exitStatus(), output: process.output)
        }
        do {
            let result = try await body(standIn)
            await standIn.stop()
            return result
        } catch {
            await standIn.stop()
            throw error
        }
    }

    func stop() async {
        await process.stop()
        try? FileManager.default.removeItem(at: root)
    }

    /// Sets how the stand-in answers (`normal`, `down`, `slow`, `status429`, `status500`, `garbage`, `html`,
    /// `truncated`), for `codes` only when given.
    func behave(_ mode: String, delaySeconds: Double? = nil, codes: [String]? = nil) async throws {
        var body: [String: Any] = ["mode": mode]
        if let delaySeconds { body["delaySeconds"] = delaySeconds }
        if let codes { body["codes"] = codes }
        let status = try await post("/_standin/behaviour", json: try JSONSerialization.data(withJSONObject: body))
        #expect(status == 204, "the stand-in refused behaviour \(mode)")
    }

    /// Every product request seen so far, oldest first.
    func requests() async throws -> [SeenRequest] {
        let response = try await HTTPClient.shared.execute(HTTPClientRequest(url: "\(baseURL)/_standin/requests"), timeout: .seconds(5))
        return try JSONDecoder().decode([SeenRequest].self, from: Data(buffer: try await response.body.collect(upTo: 1 << 22)))
    }

    private func post(_ path: String, json: Data) async throws -> UInt {
        var request = HTTPClientRequest(url: "\(baseURL)\(path)")
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.body = .bytes(ByteBuffer(data: json))
        return try await HTTPClient.shared.execute(request, timeout: .seconds(5)).status.code
    }
}

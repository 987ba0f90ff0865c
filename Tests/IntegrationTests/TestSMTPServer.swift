import Foundation
import Testing

/// A real SMTP server for one test: `Tests/StandIns/smtp_server.py` on aiosmtpd (installed by `deploy/setup.sh`, found
/// through `NUTRITION_AIOSMTPD_PATH`), started with `Process` on loopback and stopped afterwards. What it receives is
/// read back as Python's email package decoded it.
final class TestSMTPServer: Sendable {
    /// How the server protects its sessions (the `--tls` of the script).
    enum Security: String, Sendable {
        case implicit, starttls, none
    }

    /// One message as the server received it.
    struct ReceivedMail: Decodable, Sendable {
        var mailFrom: String
        var recipients: [String]
        var mailOptions: [String]
        /// Whether the session was under TLS when the message was sent.
        var tls: Bool
        /// The user the client signed in as, if it did.
        var login: String?
        /// The message as it crossed the wire, after SMTP's dot-unstuffing.
        var raw: String
        /// Every header by lower-case name, decoded (RFC 2047 words turned back into text).
        var headers: [String: [String]]
        /// The `Date` header as seconds since 1970, if it parsed as an RFC 5322 date.
        var dateEpoch: Double?
        /// The decoded body, LF line ends.
        var body: String
        /// What the parser found wrong with the message.
        var defects: [String]

        /// The first value of header `name`.
        func header(_ name: String) -> String? { headers[name.lowercased()]?.first }
    }

    /// One AUTH attempt the server saw (never the password).
    struct AuthAttempt: Decodable, Sendable {
        var mechanism: String
        var login: String
        var tls: Bool
        var accepted: Bool
    }

    /// Whether the tests can start the server: `deploy/test` exports where aiosmtpd is.
    static var isAvailable: Bool { ProcessInfo.processInfo.environment["NUTRITION_AIOSMTPD_PATH"] != nil }

    let port: Int
    /// Where received messages land.
    let directory: URL
    /// The server's own folder (messages, log, ready file), removed when it stops.
    private let root: URL
    private let process: ChildProcess

    private init(port: Int, root: URL, process: ChildProcess) {
        self.port = port
        self.root = root
        directory = root.appendingPathComponent("received")
        self.process = process
    }

    /// Starts a server and waits until it listens. `port` 0 takes any free port; `user` and `password` make it
    /// require AUTH, with the `mechanisms` it offers. `certificates` are needed for the TLS modes.
    static func start(
        _ security: Security, certificates: TestCertificates? = nil, user: String? = nil, password: String? = nil,
        mechanisms: [String] = ["PLAIN", "LOGIN"], port: Int = 0
    ) async throws -> TestSMTPServer {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("smtp-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let ready = directory.appendingPathComponent("ready")
        let received = directory.appendingPathComponent("received")
        var arguments = [
            script.path, "--tls", security.rawValue, "--port", String(port), "--out", received.path, "--ready-file", ready.path,
            "--mechanisms", mechanisms.joined(separator: ","),
        ]
        if let certificates { arguments += ["--cert", certificates.serverCertificate.path, "--key", certificates.serverKey.path] }
        if let user { arguments += ["--user", user, "--password", password ?? ""] }
        let process = try ChildProcess(
            "python3", arguments, environment: ["PYTHONPATH": ProcessInfo.processInfo.environment["NUTRITION_AIOSMTPD_PATH"] ?? ""],
            log: directory.appendingPathComponent("server.log"))
        let deadline = ContinuousClock.now + .seconds(20)
        while ContinuousClock.now < deadline {
            if let text = try? String(contentsOf: ready, encoding: .utf8), let listening = Int(text) {
                return TestSMTPServer(port: listening, root: directory, process: process)
            }
            if process.hasExited { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        await process.stop()
        let status = await process.exitStatus()
        throw ChildProcess.Failure(program: "smtp_server.py (did not start listening)", status: status, output: process.output)
    }

    /// Runs `body` with a started server and stops the server afterwards.
    static func run<T>(
        _ security: Security, certificates: TestCertificates? = nil, user: String? = nil, password: String? = nil,
        mechanisms: [String] = ["PLAIN", "LOGIN"], _ body: (TestSMTPServer) async throws -> T
    ) async throws -> T {
        let server = try await start(security, certificates: certificates, user: user, password: password, mechanisms: mechanisms)
        do {
            let result = try await body(server)
            await server.stop()
            return result
        } catch {
            await server.stop()
            throw error
        }
    }

    /// Stops the server and removes its folder.
    func stop() async {
        await process.stop()
        try? FileManager.default.removeItem(at: root)
    }

    /// The server's own log (aiosmtpd's messages), for failure reports.
    var log: String { process.output }

    /// Every message received so far, oldest first.
    func received() throws -> [ReceivedMail] {
        let files = (try? FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil)) ?? []
        return try files.filter { $0.pathExtension == "json" }.sorted { $0.lastPathComponent < $1.lastPathComponent }
            .map { try JSONDecoder().decode(ReceivedMail.self, from: Data(contentsOf: $0)) }
    }

    /// Every AUTH attempt so far.
    func authAttempts() throws -> [AuthAttempt] {
        guard let text = try? String(contentsOf: directory.appendingPathComponent("auth.jsonl"), encoding: .utf8) else { return [] }
        return try text.split(separator: "\n").map { try JSONDecoder().decode(AuthAttempt.self, from: Data($0.utf8)) }
    }

    /// Waits until `count` messages have arrived (or `timeout` passed) and returns what arrived.
    func waitForMail(count: Int = 1, timeout: Duration = .seconds(20)) async throws -> [ReceivedMail] {
        _ = try await TestEnvironment.eventually(timeout: timeout) { try self.received().count >= count }
        return try received()
    }

    /// A loopback port nobody uses now, for a server that starts later: one below Linux's ephemeral range (32768 and
    /// up), which the kernel never hands out on its own. A port it picked (bind to 0) came from that range, and in the
    /// seconds before the server started an outgoing connection of the suite (PostgreSQL, the broker, the relay's
    /// own attempts) could take it as its source port, so the server found it in use (a CI run of stop 43).
    static func freePort() throws -> Int {
        for _ in 0..<100 {
            let candidate = Int.random(in: 20_000..<32_768)
            if try canBind(candidate) { return candidate }
        }
        throw POSIXError(.EADDRINUSE)
    }

    /// Whether a listening socket could bind `port` on loopback now.
    private static func canBind(_ port: Int) throws -> Bool {
        let socket = Foundation.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw POSIXError(.EMFILE) }
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        let length = socklen_t(MemoryLayout<sockaddr_in>.size)
        return withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in bind(socket, generic, length) == 0 }
        }
    }

    /// `Tests/StandIns/smtp_server.py`, next to this folder.
    private static var script: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("StandIns/smtp_server.py")
    }
}

import Foundation
import Testing

@testable import TrendsService

/// The typed Swift client at work: the `nutri` command (built with the tests) run against the whole stack through
/// the gateway, as an app developer would run it.
@Suite("The typed client's nutri command against the stack", .serialized, .enabled(if: TestEnvironment.isAvailable))
struct TypedClientTests {
    /// `nutri` beside the test bundle (`swift build --build-tests` builds every product).
    static var nutri: URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent().appendingPathComponent("nutri")
    }

    /// The machine zone `nutri` runs in: a name the server's default (`UTC`) is not, for the same days.
    static let machineZone = "Etc/UTC"

    /// Runs `nutri` with `arguments` on a machine in `machineZone`; its exit status and what it printed.
    static func run(_ arguments: [String]) async throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = nutri
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(["TZ": machineZone]) { _, zone in zone }
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = try await Task.detached { try pipe.fileHandleForReading.readToEnd() ?? Data() }.value
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: output, as: UTF8.self))
    }

    @Test("nutri registers, logs a meal by text and prints today's totals and the 7-day trend; run again, it signs in")
    func nutriAgainstTheStack() async throws {
        try await FullStack.run(start: OfflineSyncJourneyTests.start) { stack in
            #expect(FileManager.default.isExecutableFile(atPath: Self.nutri.path), "no nutri at \(Self.nutri.path)")
            let port = try #require(stack.gateway.port)
            let email = "nutri-\(UUID().uuidString.prefix(8).lowercased())@example.com"
            let common = ["--server", "http://127.0.0.1:\(port)", "--email", email, "--password", "correct horse battery"]
            let first = try await Self.run(common + ["--meal", "2 eggs and a slice of toast"])
            #expect(first.status == 0, "nutri failed: \(first.output)")
            #expect(first.output.contains("registered \(email)") && first.output.contains("logged "), "\(first.output)")
            let trendDays = first.output.split(separator: "\n").filter { $0.hasPrefix("  2026-") }
            #expect(trendDays.count == 7, "the 7-day trend: \(first.output)")

            // Trends follows the meal's event a moment later; then nutri, run again, signs in and shows it.
            let session = try await stack.gateway.login(email: email).decoded(SessionAnswer.self)
            #expect(session.profile.timeZone == Self.machineZone, "nutri registers in the machine's zone")
            _ = try await stack.gateway.eventually("/api/history/2026-03-10", token: session.accessToken, as: DayHistory.self) {
                $0.summary.mealsConsumed == 1
            }
            let again = try await Self.run(common)
            #expect(again.status == 0 && again.output.contains("signed in as \(email)"), "\(again.output)")
            #expect(again.output.contains("today: 1 meals") && !again.output.contains("2026-03-10  0 kcal"), "\(again.output)")
            let wrong = try await Self.run(["--server", "http://127.0.0.1:\(port)", "--email", email, "--password", "not the password"])
            #expect(wrong.status != 0, "a wrong password must fail: \(wrong.output)")
        }
    }
}

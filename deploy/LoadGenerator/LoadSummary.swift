import Foundation

/// One measured window in figures for scripts (`--summary-file`: one JSON object a line, a line per window): reads,
/// writes and all requests with their latencies in milliseconds, the unexpected answers, and the stack's CPU per
/// request by part, so that deploy/bench/rest.sh reads the figures rather than the report's text.
struct LoadSummary: Encodable {
    var label: String
    var users: Int
    var windowSeconds: Double
    var reads: RouteStatistics
    var writes: RouteStatistics
    var all: RouteStatistics
    /// Answers that were neither 2xx nor an intended 429.
    var unexpectedAnswers: Int
    /// Milliseconds of CPU of every process of the stack per request; nil when no process was named.
    var stackCPUMillisecondsPerRequest: Double?
    /// The same by part (gateway, each service, postgres, broker); empty when no process was named.
    var stackCPUMillisecondsPerRequestByPart: [String: Double]

    /// The summary as one line of JSON (keys sorted, so that lines of two runs compare).
    func jsonLine() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return String(decoding: try encoder.encode(self), as: UTF8.self)
    }

    /// Appends the summary as a line to the file at `path`, creating it when missing.
    func append(to path: String) throws {
        let line = Data((try jsonLine() + "\n").utf8)
        if !FileManager.default.fileExists(atPath: path) { FileManager.default.createFile(atPath: path, contents: nil) }
        let file = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        defer { try? file.close() }
        try file.seekToEnd()
        try file.write(contentsOf: line)
    }
}

import Foundation
import Testing

@testable import ServiceDefaults

@Suite("JSON log lines")
struct JSONLogHandlerTests {
    @Test("strings with quotes, newlines and control characters stay valid JSON")
    func escaping() throws {
        var line = ""
        JSONLogHandler.appendString("say \"hi\"\n\\ \u{01} é", to: &line)
        let decoded = try JSONDecoder().decode(String.self, from: Data(line.utf8))
        #expect(decoded == "say \"hi\"\n\\ \u{01} é")
    }

    @Test("timestamps are ISO-8601 in UTC with milliseconds")
    func timestamps() throws {
        let stamp = JSONLogHandler.timestamp()
        #expect(stamp.count == 24)
        #expect(stamp.hasSuffix("Z"))
        let parsed = try Date(stamp, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true))
        #expect(abs(parsed.timeIntervalSinceNow) < 5)
    }
}

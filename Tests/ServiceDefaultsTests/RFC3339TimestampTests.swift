import Foundation
import Testing

@testable import APIContracts

/// Request timestamps: exactly RFC 3339's `date-time`, the JSON Schema format the API document gives them.
@Suite("RFC 3339 timestamps")
struct RFC3339TimestampTests {
    @Test(
        "an RFC 3339 date-time is read to its instant, whatever its case, fraction or offset",
        arguments: [
            ("2026-05-01T12:30:00Z", 1_777_638_600.0),
            ("2026-05-01t12:30:00z", 1_777_638_600.0),
            ("2026-05-01T14:30:00.250+02:00", 1_777_638_600.25),
            ("2026-05-01T12:30:00.123456789123Z", 1_777_638_600.123_456_789),
            ("2026-05-01T00:00:00-23:30", 1_777_678_200.0),
            ("2026-05-01T12:30:00-00:00", 1_777_638_600.0),
            ("2016-12-31T23:59:60Z", 1_483_228_800.0),
            ("0001-01-01T00:00:00Z", -62_135_596_800.0),
            ("2024-02-29T00:00:00Z", 1_709_164_800.0),
        ])
    func read(text: String, seconds: Double) throws {
        let instant = try #require(RFC3339Timestamp.parse(text), "\(text)")
        #expect(abs(instant.timeIntervalSince1970 - seconds) < 0.000_001, "\(text)")
    }

    @Test(
        "anything else is no time (Foundation's ISO 8601 parser takes several of these)",
        arguments: [
            "2026-05-01T12:99:00Z", "2026-05-01T24:00:00Z", "2026-02-30T00:00:00Z", "2026-05-01T12:30:61Z", "2026-05-01 12:30:00Z",
            "2026-05-01T12:30Z", "2026-05-01T12:30:00+0100", "2026-05-01T12:30:00", "2026-05-01T12:30:00.Z", "2026-05-01T12:30:00,5Z",
            "2026-05-01T12:30:00+24:00", "2026-05-01T12:30:00+01:60", "0000-01-01T00:00:00Z", "2026-05-01", "", "2026-05-01T12:30:00Z ",
            "+2026-05-01T12:30:00Z", "2026-5-01T12:30:00Z", "２０２６-05-01T12:30:00Z",
        ])
    func refused(text: String) {
        #expect(RFC3339Timestamp.parse(text) == nil, "\(text)")
    }
}

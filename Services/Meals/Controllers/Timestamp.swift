import Foundation
import ServiceDefaults

/// Timestamps as clients send them: RFC 3339 `date-time` (`RFC3339Timestamp`), with or without fractional seconds,
/// with an offset or `Z`.
enum Timestamp {
    static func parse(_ text: String) -> Date? {
        RFC3339Timestamp.parse(text)
    }
}

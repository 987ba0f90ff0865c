import Foundation

/// ISO-8601 timestamps as clients send them, with or without fractional seconds, with an offset or `Z`.
enum Timestamp {
    static func parse(_ text: String) -> Date? {
        if let date = try? Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true)) { return date }
        return try? Date(text, strategy: Date.ISO8601FormatStyle())
    }
}

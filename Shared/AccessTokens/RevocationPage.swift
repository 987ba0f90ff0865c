import Foundation
import WireJSON

/// An answer of `GET /internal/revocations?after=<cursor>`: the revocations recorded since `after` (all live ones
/// without it, possibly some seen before) and the cursor for the next request. Times are ISO-8601 in UTC with
/// fractional seconds, so a user-wide cutoff is not moved by rounding.
public struct RevocationPage: Codable, Sendable, Equatable {
    public var revocations: [Revocation]
    /// Opaque; sent back as `after`.
    public var cursor: String

    public init(revocations: [Revocation], cursor: String) {
        self.revocations = revocations
        self.cursor = cursor
    }

    /// The page as JSON.
    public func encoded() throws -> Data {
        let encoder = WireJSONEncoder()
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(date.formatted(Self.timeFormat))
        }
        return try encoder.encode(self)
    }

    /// A page from JSON made by `encoded()`.
    public static func decoded(from data: Data) throws -> RevocationPage {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            return try timeFormat.parse(try container.decode(String.self))
        }
        return try decoder.decode(RevocationPage.self, from: data)
    }

    private static let timeFormat = Date.ISO8601FormatStyle(includingFractionalSeconds: true, timeZone: TimeZone(secondsFromGMT: 0)!)
}

import APIContracts
import Crypto
import Foundation

/// When a write was made, for last-write-wins: the client's `modifiedAt` (the server's time without one), to the
/// millisecond, and a tiebreak taken from the write's own bytes, so that two writes stamped with the same
/// millisecond are ordered the same way whichever arrives first.
public struct WriteStamp: Comparable, Hashable, Sendable {
    /// Milliseconds since 1970.
    public var millis: Int64
    /// Lowercase hex digits of a hash of the write; compared when `millis` are equal.
    public var tiebreak: String

    public init(millis: Int64, tiebreak: String) {
        self.millis = millis
        self.tiebreak = tiebreak
    }

    /// A stamp at `date` (rounded to the millisecond).
    public init(_ date: Date, tiebreak: String) {
        self.init(millis: Int64((date.timeIntervalSince1970 * 1000).rounded()), tiebreak: tiebreak)
    }

    /// The moment, to the millisecond.
    public var date: Date { Date(timeIntervalSince1970: Double(millis) / 1000) }

    public static func < (lhs: WriteStamp, rhs: WriteStamp) -> Bool {
        (lhs.millis, lhs.tiebreak) < (rhs.millis, rhs.tiebreak)
    }

    /// How far ahead of the server a client's clock may be; a later `modifiedAt` counts as the server's time, so a
    /// device whose clock runs ahead cannot win every future conflict.
    public static let allowedClockSkew: TimeInterval = 300

    /// The stamp of a write whose body is `body` and whose `modifiedAt` field is `modifiedAt` (ISO 8601), at server
    /// time `now`. 422 naming `modifiedAt` when it is not a timestamp.
    public static func of(modifiedAt: String?, body: some Sequence<UInt8>, now: Date) throws -> WriteStamp {
        let tiebreak = SHA256.hash(data: Array(body)).prefix(8).map { String(format: "%02x", $0) }.joined()
        guard let modifiedAt else { return WriteStamp(now, tiebreak: tiebreak) }
        guard let date = RFC3339Timestamp.parse(modifiedAt) else {
            throw APIError.invalid(["modifiedAt": "Use an ISO 8601 time such as 2026-05-01T12:30:00.000Z."])
        }
        return WriteStamp(min(date, now.addingTimeInterval(allowedClockSkew)), tiebreak: tiebreak)
    }
}

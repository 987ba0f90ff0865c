import Foundation

/// A time as a request writes it: RFC 3339's `date-time` (section 5.6), which is JSON Schema's `date-time` format and
/// what the API document promises: `2026-05-01T12:30:00Z`, `2026-05-01T14:30:00.250+02:00`, `T` and `Z` in either
/// case, any number of fraction digits, an offset of at most 23:59, a leap second (`:60`) counted as the next second.
/// Years 0001 to 9999, as dates (`CalendarDate`). Anything else is no time: an hour, minute, day or offset out of
/// range, a missing offset, a space for `T`, an offset without its colon (Foundation's ISO 8601 parser takes some of
/// these and refuses others, such as an offset over 18 hours, which RFC 3339 allows).
public enum RFC3339Timestamp {
    /// The instant `text` names; nil when it is not an RFC 3339 `date-time`.
    public static func parse(_ text: some StringProtocol) -> Date? {
        let bytes = Array(text.utf8)
        guard bytes.count >= 20, bytes[4] == dash, bytes[7] == dash, bytes[10] == UInt8(ascii: "T") || bytes[10] == UInt8(ascii: "t"),
            bytes[13] == colon, bytes[16] == colon,
            let date = CalendarDate(String(decoding: bytes[0..<10], as: UTF8.self)),
            let hour = number(bytes, 11..<13), hour < 24, let minute = number(bytes, 14..<16), minute < 60,
            let second = number(bytes, 17..<19), second <= 60
        else { return nil }
        var index = 19
        var fraction = 0.0
        if bytes[index] == UInt8(ascii: ".") {
            index += 1
            var scale = 0.1
            let start = index
            while index < bytes.count, let digit = digit(bytes[index]) {
                fraction += Double(digit) * scale
                scale /= 10
                index += 1
            }
            guard index > start else { return nil }
        }
        guard index < bytes.count else { return nil }
        var offset = 0
        switch bytes[index] {
        case UInt8(ascii: "Z"), UInt8(ascii: "z"):
            index += 1
        case UInt8(ascii: "+"), dash:
            guard bytes.count == index + 6, bytes[index + 3] == colon, let hours = number(bytes, index + 1..<index + 3), hours < 24,
                let minutes = number(bytes, index + 4..<index + 6), minutes < 60
            else { return nil }
            offset = (hours * 3600 + minutes * 60) * (bytes[index] == dash ? -1 : 1)
            index += 6
        default:
            return nil
        }
        guard index == bytes.count else { return nil }
        let seconds = date.ordinal * 86_400 + hour * 3600 + minute * 60 + second - offset
        return Date(timeIntervalSince1970: Double(seconds) + fraction)
    }

    private static let dash = UInt8(ascii: "-")
    private static let colon = UInt8(ascii: ":")

    private static func digit(_ byte: UInt8) -> Int? {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) ? Int(byte - UInt8(ascii: "0")) : nil
    }

    private static func number(_ bytes: [UInt8], _ range: Range<Int>) -> Int? {
        var value = 0
        for byte in bytes[range] {
            guard let digit = digit(byte) else { return nil }
            value = value * 10 + digit
        }
        return value
    }
}

import Foundation

/// A day of the proleptic Gregorian calendar, as a user lives it (no time, no zone): `2026-05-01` on the wire.
///
/// Day arithmetic uses the day's ordinal (days since 1970-01-01) with Howard Hinnant's civil-date algorithms,
/// so stepping through a year of days costs no `Calendar` calls. Only conversions between instants and days
/// need a time zone.
public struct CalendarDate: Hashable, Comparable, Sendable, CustomStringConvertible {
    public let year: Int
    public let month: Int
    public let day: Int

    /// The date written `YYYY-MM-DD`; nil for any other text or an impossible day such as `2026-02-30`.
    public init?(_ text: some StringProtocol) {
        let utf8 = Array(text.utf8)
        guard utf8.count == 10, utf8[4] == UInt8(ascii: "-"), utf8[7] == UInt8(ascii: "-") else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for byte in utf8[range] {
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
            return value
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10), year >= 1,
            (1...12).contains(month), (1...Self.daysIn(month: month, year: year)).contains(day)
        else { return nil }
        self.year = year
        self.month = month
        self.day = day
    }

    /// The day `ordinal` days after 1970-01-01 (negative before it).
    public init(ordinal: Int) {
        let z = ordinal + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
    }

    /// The user's day of `instant` in `zone`.
    public init(_ instant: Date, in zone: TimeZone) {
        let seconds = Int((instant.timeIntervalSince1970 + Double(zone.secondsFromGMT(for: instant))).rounded(.down))
        self.init(ordinal: seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400)
    }

    /// The first day of `month` (1-12) in `year`; nil when out of range.
    public init?(year: Int, month: Int, day: Int = 1) {
        guard year >= 1, (1...12).contains(month), (1...Self.daysIn(month: month, year: year)).contains(day) else { return nil }
        self.year = year
        self.month = month
        self.day = day
    }

    /// Days since 1970-01-01.
    public var ordinal: Int {
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    public func adding(days: Int) -> CalendarDate { CalendarDate(ordinal: ordinal + days) }

    /// Whole days from `self` to `other` (positive when `other` is later).
    public func days(until other: CalendarDate) -> Int { other.ordinal - ordinal }

    /// ISO weekday: 1 Monday ... 7 Sunday.
    public var isoWeekday: Int { ((ordinal + 3) % 7 + 7) % 7 + 1 }

    /// The Monday of this day's ISO week.
    public var startOfWeek: CalendarDate { startOfWeek(on: .monday) }

    /// The first day of this day's week, in a week that starts on `first`.
    public func startOfWeek(on first: Weekday) -> CalendarDate { adding(days: -(((isoWeekday - first.isoNumber) % 7 + 7) % 7)) }

    public var startOfMonth: CalendarDate { CalendarDate(year: year, month: month)! }

    public var daysInMonth: Int { Self.daysIn(month: month, year: year) }

    /// The first instant of this day in `zone` (the later one when a zone skips midnight).
    public func start(in zone: TimeZone) -> Date {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        return calendar.date(from: DateComponents(year: year, month: month, day: day))!
    }

    /// The latest calendar date any zone has at `now` (UTC+14's): no entry can be dated later, whatever zone it was
    /// logged in.
    public static func latestAnywhere(at now: Date) -> CalendarDate { CalendarDate(now, in: TimeZone(secondsFromGMT: 14 * 3600)!) }

    /// Today in `zone` at `now`.
    public static func today(in zone: TimeZone, now: Date) -> CalendarDate { CalendarDate(now, in: zone) }

    public var description: String {
        let y = String(year), m = String(month), d = String(day)
        return String(repeating: "0", count: max(0, 4 - y.count)) + y + "-" + (m.count == 1 ? "0" : "") + m + "-"
            + (d.count == 1 ? "0" : "") + d
    }

    public static func < (lhs: CalendarDate, rhs: CalendarDate) -> Bool {
        (lhs.year, lhs.month, lhs.day) < (rhs.year, rhs.month, rhs.day)
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }
}

extension CalendarDate: Codable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let date = CalendarDate(text) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "not a YYYY-MM-DD date")
        }
        self = date
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}

import Foundation

/// A "now" and the user's zone for a test about days (`@Test(arguments: TestToday.variety)`): each weekday in turn as
/// today, a zone whose date is a day ahead of UTC's (UTC+14) and one a day behind (UTC-11), and a week with a
/// daylight-saving change in it (a 23-hour and a 25-hour day). Its dates are reckoned with Foundation's Gregorian
/// calendar in the zone, apart from the services' own `CalendarDate`, so a test's expectations do not share the code
/// they check.
public struct TestToday: Sendable, CustomStringConvertible {
    /// What the case stresses, for the test's name and its failure messages.
    public let name: String
    /// The user's zone.
    public let zone: TimeZone
    /// The zone's IANA name as a user sends it (Foundation may call UTC "GMT").
    public let zoneName: String
    /// The instant the routes take as now.
    public let now: Date

    public init(_ name: String, zone: String, now: String) {
        self.name = name
        self.zone = TimeZone(identifier: zone)!
        self.zoneName = zone
        self.now = try! Date(now, strategy: .iso8601)
    }

    public var description: String { "\(name) (\(zoneName), \(now.formatted(.iso8601)), today \(date))" }

    /// Every case: the suites about days run each.
    public static let variety: [TestToday] = weekdays + [plus14, minus11, springForward, fallBack]

    /// Monday 2026-05-11 to Sunday 2026-05-17, each at noon in UTC.
    public static let weekdays: [TestToday] = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"].enumerated().map {
        TestToday("a \($1)", zone: "UTC", now: "2026-05-\(11 + $0)T12:00:00Z")
    }
    /// Kiritimati (UTC+14): half past midnight on Monday 2026-05-18 there, still Sunday in UTC.
    public static let plus14 = TestToday("UTC+14, a day ahead of UTC", zone: "Pacific/Kiritimati", now: "2026-05-17T10:30:00Z")
    /// Pago Pago (UTC-11): half past eleven on Sunday 2026-05-17 there, already Monday in UTC.
    public static let minus11 = TestToday("UTC-11, a day behind UTC", zone: "Pacific/Pago_Pago", now: "2026-05-18T10:30:00Z")
    /// Berlin, half past midnight on Monday 2026-03-30: yesterday, Sunday, had 23 hours (clocks went forward at 02:00).
    public static let springForward = TestToday("the day after a 23-hour day", zone: "Europe/Berlin", now: "2026-03-29T22:30:00Z")
    /// New York, half past eleven in the evening of Sunday 2026-11-01, a 25-hour day (clocks went back at 02:00).
    public static let fallBack = TestToday("late on a 25-hour day", zone: "America/New_York", now: "2026-11-02T04:30:00Z")

    /// The Gregorian calendar in the user's zone.
    public var calendar: Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        return calendar
    }

    /// Today in the user's zone, `YYYY-MM-DD`.
    public var date: String { date(daysAgo: 0) }

    /// The day `daysAgo` days before today (after it when negative), `YYYY-MM-DD`.
    public func date(daysAgo: Int) -> String { Self.date(of: noon(daysAgo: daysAgo), in: zone) }

    /// The date of `instant` in `zone`, `YYYY-MM-DD`.
    public static func date(of instant: Date, in zone: TimeZone) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let components = calendar.dateComponents([.year, .month, .day], from: instant)
        return String(format: "%04d-%02d-%02d", components.year!, components.month!, components.day!)
    }

    /// Noon in the user's zone on the day `daysAgo` days before today (never in a daylight-saving gap).
    public func noon(daysAgo: Int) -> Date { time(daysAgo: daysAgo, hour: 12) }

    /// `hour:minute` in the user's zone on the day `daysAgo` days before today.
    public func time(daysAgo: Int, hour: Int, minute: Int = 0) -> Date {
        let day = calendar.date(byAdding: .day, value: -daysAgo, to: calendar.startOfDay(for: now))!
        return calendar.date(bySettingHour: hour, minute: minute, second: 0, of: day)!
    }

    /// `instant` as the API writes times: ISO 8601 in UTC with milliseconds.
    public static func timestamp(_ instant: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: instant)
    }

    /// Today's weekday, ISO-numbered: 1 Monday to 7 Sunday.
    public var isoWeekday: Int { (calendar.component(.weekday, from: now) + 5) % 7 + 1 }

    /// How many days today is after the start of its week when weeks start on `firstDay` (ISO-numbered, 1 Monday).
    public func daysIntoWeek(startingOn firstDay: Int = 1) -> Int { (isoWeekday - firstDay + 7) % 7 }

    /// The days of today's month up to today, `YYYY-MM-DD`.
    public var monthSoFar: [String] {
        let day = calendar.component(.day, from: now)
        return (0..<day).reversed().map { date(daysAgo: $0) }
    }

    /// Today's month, `YYYY-MM`.
    public var month: String { month(offset: 0).name }

    /// The month `offset` months after today's (before it when negative): `YYYY-MM` and how many days it has.
    public func month(offset: Int) -> (name: String, days: Int) {
        let inMonth = calendar.date(byAdding: .month, value: offset, to: noon(daysAgo: 0))!
        let components = calendar.dateComponents([.year, .month], from: inMonth)
        return (String(format: "%04d-%02d", components.year!, components.month!), calendar.range(of: .day, in: .month, for: inMonth)!.count)
    }
}

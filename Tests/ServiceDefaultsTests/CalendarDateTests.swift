import Foundation
import Testing

@testable import ServiceDefaults

@Suite("Calendar dates")
struct CalendarDateTests {
    @Test(
        "parses only real YYYY-MM-DD days",
        arguments: ["2026-02-29", "2026-13-01", "2026-00-10", "2026-04-31", "26-01-01", "2026-1-01", "2026/01/01", "２０２６-01-01", "2026-01-0a", ""])
    func rejects(_ text: String) {
        #expect(CalendarDate(text) == nil)
    }

    @Test("leap days and round trips")
    func leapDays() throws {
        let leap = try #require(CalendarDate("2024-02-29"))
        #expect(leap.description == "2024-02-29")
        #expect(CalendarDate("2000-02-29") != nil)
        #expect(CalendarDate("1900-02-29") == nil)
        #expect(leap.adding(days: 1).description == "2024-03-01")
        #expect(leap.adding(days: -60).description == "2023-12-31")
    }

    @Test("ordinals agree with Foundation for every day of several years")
    func ordinals() {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        for ordinal in stride(from: -800, through: 25_000, by: 1) {
            let date = CalendarDate(ordinal: ordinal)
            let parts = calendar.dateComponents([.year, .month, .day], from: Date(timeIntervalSince1970: Double(ordinal) * 86_400))
            #expect(date.year == parts.year && date.month == parts.month && date.day == parts.day, "ordinal \(ordinal)")
            #expect(date.ordinal == ordinal)
        }
        #expect(CalendarDate("1970-01-01")?.ordinal == 0)
    }

    @Test("ISO weekdays, weeks and months")
    func weeks() throws {
        let saturday = try #require(CalendarDate("2026-11-21"))
        #expect(saturday.isoWeekday == 6)
        #expect(saturday.startOfWeek.description == "2026-11-16")
        #expect(saturday.startOfMonth.description == "2026-11-01")
        #expect(saturday.daysInMonth == 30)
        #expect(CalendarDate("1970-01-01")?.isoWeekday == 4)
        #expect(CalendarDate("1969-12-28")?.isoWeekday == 7)
    }

    @Test("an instant falls on the user's day in the user's zone")
    func zones() throws {
        let instant = try Date("2026-03-01T07:30:00Z", strategy: .iso8601)
        #expect(CalendarDate(instant, in: TimeZone(identifier: "UTC")!).description == "2026-03-01")
        #expect(CalendarDate(instant, in: TimeZone(identifier: "America/Los_Angeles")!).description == "2026-02-28")
        #expect(CalendarDate(instant, in: TimeZone(identifier: "Pacific/Kiritimati")!).description == "2026-03-01")
        let auckland = TimeZone(identifier: "Pacific/Auckland")!
        let day = try #require(CalendarDate("2026-07-01"))
        let start = day.start(in: auckland)
        #expect(CalendarDate(start, in: auckland) == day)
        #expect(CalendarDate(start.addingTimeInterval(-1), in: auckland) == day.adding(days: -1))
        #expect(CalendarDate(Date(timeIntervalSince1970: -1), in: TimeZone(identifier: "UTC")!).description == "1969-12-31")
    }

    @Test("encodes as its text and refuses impossible days when decoding")
    func coding() throws {
        let date = try #require(CalendarDate("2026-05-01"))
        let data = try JSONEncoder().encode([date])
        #expect(String(decoding: data, as: UTF8.self) == "[\"2026-05-01\"]")
        #expect(try JSONDecoder().decode([CalendarDate].self, from: data) == [date])
        #expect(throws: DecodingError.self) { try JSONDecoder().decode([CalendarDate].self, from: Data("[\"2026-02-30\"]".utf8)) }
    }
}

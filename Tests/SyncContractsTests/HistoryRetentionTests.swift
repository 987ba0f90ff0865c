import Foundation
import ServiceDefaults
import SyncContracts
import TestSupport
import Testing

/// The one cut-off of history retention that the purges and the imports share, and how an import item fails.
@Suite("History retention and import results")
struct HistoryRetentionTests {
    /// 2026-03-10 02:00 UTC: still 2026-03-09 in New York.
    static let now = Date(timeIntervalSince1970: 1_773_108_000)

    @Test("the first date kept is today in the user's zone minus the days kept; the day before it is refused", arguments: TestToday.variety)
    func cutOff(day: TestToday) throws {
        let retention = HistoryRetention(days: 30, timeZone: day.zone)
        let firstKept = day.date(daysAgo: 30)
        #expect(retention.firstKeptDate(now: day.now).description == firstKept)

        let kept = try #require(CalendarDate(firstKept))
        #expect(retention.refusal(of: kept, field: "date", now: day.now) == nil)
        let refusal = try #require(retention.refusal(of: kept.adding(days: -1), field: "date", now: day.now))
        #expect(refusal.status == .unprocessableContent && refusal.code == "beyond_history_retention")
        #expect(refusal.details == ["date": "before \(firstKept)"])
        #expect(retention.refusal(of: kept, field: "eatenAt", now: day.now) == nil)
    }

    @Test("the cut-off follows the user's zone, not UTC's date: the same instant keeps a day more or less")
    func cutOffByZone() throws {
        let newYork = HistoryRetention(days: 30, timeZone: try #require(TimeZone(identifier: "America/New_York")))
        let utc = HistoryRetention(days: 30, timeZone: try #require(TimeZone(identifier: "UTC")))
        #expect(newYork.firstKeptDate(now: Self.now).description == "2026-02-07")
        #expect(utc.firstKeptDate(now: Self.now).description == "2026-02-08")
        let kept = try #require(CalendarDate("2026-02-07"))
        #expect(utc.refusal(of: kept, field: "eatenAt", now: Self.now)?.details == ["eatenAt": "before 2026-02-08"])
    }

    @Test("an item's own problem (4xx) rejects it; a server's problem (5xx) fails the import")
    func rejections() throws {
        let invalid = APIError.invalid(["id": "Use a UUID."])
        let result = try SyncImportResult.rejected(type: "meal", id: "x", because: invalid)
        #expect(result.status == .rejected && result.error == SyncImportResult.Problem(invalid))
        let unavailable = APIError(.serviceUnavailable, code: "service_unavailable", message: "Loading.")
        #expect(throws: APIError.self) { try SyncImportResult.rejected(type: "meal", id: "x", because: unavailable) }
    }
}

import Foundation
import Logging
import ServiceDefaults
import Synchronization
import Testing

@testable import TrendsService
@testable import TrendsTesting

/// `ReadyReports.consistently`: a report whose reads an event landed between is read again, and only a report read at
/// the version it is kept under is kept.
@Suite("Ready reports read one version of the data")
struct ReadyReportsTests {
    let user = UUID()
    let logger = Logger(label: "test")

    func day(_ calories: Double) -> DaySummary {
        DaySummary(
            date: CalendarDate("2026-05-04")!, consumedCount: 1, scannedCount: 0, calories: calories, proteinGrams: 0, carbsGrams: 0,
            fatGrams: 0, fiberGrams: 0, dietScore: nil, healthScore: nil)
    }

    @Test("data that moved while it was read is read again, and the answer is the newer data's, not kept")
    func movedWhileRead() async throws {
        let store = InMemoryTrendsStore()
        store.record(day(100), of: user)
        let reports = ReadyReports(store: store, cache: ReportCache(userCapacity: 10))
        let state = try await reports.state(of: user, logger: logger)
        let reads = Mutex(0)
        let (calories, cacheable) = try await reports.consistently(state, logger: logger) {
            let first = reads.withLock { count in
                count += 1
                return count == 1
            }
            let calories = try await store.summaries(of: user, in: CalendarDate("2026-05-04")!...CalendarDate("2026-05-04")!, logger: logger)
                .first?.calories
            // An event lands after the first read of this report's data.
            if first { store.record(day(900), of: user) }
            return calories
        }
        #expect(calories == 900, "the report answered data read before the event")
        #expect(reads.withLock { $0 } == 2)
        #expect(!cacheable, "a report of the newer data may not be kept under the older version")
    }

    @Test("data that stayed put is read once and kept")
    func stayedPut() async throws {
        let store = InMemoryTrendsStore()
        store.record(day(100), of: user)
        let reports = ReadyReports(store: store, cache: ReportCache(userCapacity: 10))
        let state = try await reports.state(of: user, logger: logger)
        let reads = Mutex(0)
        let (_, cacheable) = try await reports.consistently(state, logger: logger) { reads.withLock { $0 += 1 } }
        #expect(reads.withLock { $0 } == 1 && cacheable)
    }
}

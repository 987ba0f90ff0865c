import Foundation
import ServiceDefaults
import Testing

@testable import TrendsService

/// `WeightTrendSmoother`, the gap-aware exponential smoothing of weigh-ins.
@Suite("Gap-aware weight trend smoother")
struct WeightTrendSmootherTests {
    private let start = CalendarDate("2026-01-01")!

    @Test("one weigh-in: the trend is that weigh-in")
    func singlePoint() throws {
        let result = WeightTrendSmoother.smooth([(start, 81.3)])
        #expect(result.count == 1)
        #expect(try #require(result.first).trendKg == 81.3)
        #expect(WeightTrendSmoother.smooth([]).isEmpty)
    }

    @Test("a constant weight stays exactly constant, gaps or not")
    func constant() {
        let weighIns = [0, 1, 2, 9, 10, 40].map { (date: start.adding(days: $0), kg: 72.4) }
        #expect(WeightTrendSmoother.smooth(weighIns).allSatisfy { $0.trendKg == 72.4 })
    }

    @Test("a day moves the trend 10% of the way; a 10-day gap 1 - 0.9^10 = 65%")
    func gaps() throws {
        let nextDay = WeightTrendSmoother.smooth([(start, 80), (start.adding(days: 1), 79)])
        #expect(abs(try #require(nextDay.last).trendKg - 79.9) < 1e-9)
        let afterGap = WeightTrendSmoother.smooth([(start, 80), (start.adding(days: 10), 70)])
        #expect(abs(try #require(afterGap.last).trendKg - (80 - 10 * (1 - pow(0.9, 10)))) < 1e-9)
    }

    @Test("after a 2 kg step: half of it after 7 daily weigh-ins (not 6), 90% after 22 (not 21)")
    func stepLag() {
        let before = (0..<30).map { (date: start.adding(days: $0), kg: 80.0) }
        let after = (30..<60).map { (date: start.adding(days: $0), kg: 82.0) }
        let trend = WeightTrendSmoother.smooth(before + after).map { $0.trendKg - 80 }
        // trend[29 + k] is the trend after k weigh-ins at the new level.
        #expect(trend[29 + 6] < 1 && trend[29 + 7] >= 1)
        #expect(trend[29 + 21] < 1.8 && trend[29 + 22] >= 1.8)
    }

    @Test("weigh-ins in any order come out by date; two on one day count as their mean; invalid ones are dropped")
    func orderAndDuplicates() {
        let result = WeightTrendSmoother.smooth([
            (start.adding(days: 2), 79), (start, 80), (start, 81), (start.adding(days: 1), .nan), (start.adding(days: 1), 0),
        ])
        #expect(result.map(\.date) == [start, start.adding(days: 2)])
        #expect(result.map(\.kg) == [80.5, 79])
        #expect(abs(result[1].trendKg - (80.5 - 1.5 * 0.19)) < 1e-9)
    }
}

import Foundation
import ServiceDefaults

/// Gap-aware exponentially smoothed weight trend (also used by GET /api/trends for its weight trend line).
///
/// Each weigh-in moves the trend `1 - 0.9^gap` of the way toward itself, where `gap` is the number of days since
/// the previous weigh-in: 10% after one day, as if the skipped days had been weighed at the new value. So the
/// trend ignores most of the day-to-day swing of body water, and after a long gap it follows the new weigh-in
/// almost at once (65% after 10 days, 99.8% after 60).
///
/// The price is lag. After a step change in weight, the trend has covered `1 - 0.9^k` of the step after `k` daily
/// weigh-ins at the new level: half after 7, 90% after 22. During steady loss of `r` kg a day the trend runs
/// about `9 r` kg behind the weigh-ins (0.6 kg at 0.45 kg a week). This is why the expenditure estimate fits
/// a line to the weigh-ins instead of reading the slope of this trend.
enum WeightTrendSmoother {
    /// The share of the distance to a weigh-in the trend covers per day.
    static let dailySmoothing = 0.1

    /// The trend at every weigh-in, ascending by date; weigh-ins may come in any order. Several weigh-ins on one
    /// day count as one, their mean; weights that are not positive finite numbers are ignored. The first trend
    /// value is the first weigh-in.
    static func smooth(_ weighIns: [(date: CalendarDate, kg: Double)]) -> [(date: CalendarDate, kg: Double, trendKg: Double)] {
        var result: [(date: CalendarDate, kg: Double, trendKg: Double)] = []
        for weighIn in dailyMeans(weighIns) {
            guard let previous = result.last else {
                result.append((weighIn.date, weighIn.kg, weighIn.kg))
                continue
            }
            let gap = Double(previous.date.days(until: weighIn.date))
            let share = 1 - pow(1 - dailySmoothing, gap)
            result.append((weighIn.date, weighIn.kg, previous.trendKg + share * (weighIn.kg - previous.trendKg)))
        }
        return result
    }

    /// One weigh-in per day, the mean of that day's positive finite weights, ascending by date.
    static func dailyMeans(_ weighIns: [(date: CalendarDate, kg: Double)]) -> [(date: CalendarDate, kg: Double)] {
        var byDate: [CalendarDate: [Double]] = [:]
        for weighIn in weighIns where weighIn.kg.isFinite && weighIn.kg > 0 {
            byDate[weighIn.date, default: []].append(weighIn.kg)
        }
        return byDate.sorted { $0.key < $1.key }.map { (date: $0.key, kg: $0.value.reduce(0, +) / Double($0.value.count)) }
    }
}

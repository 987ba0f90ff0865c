import Foundation
import Hummingbird
import ServiceDefaults

/// Reads the query of a dashboard route, collecting every problem so one 422 names them all.
///
/// Ranges the client names (a month, from and to) may reach past today up to the latest date any zone has
/// (`CalendarDate.latestAnywhere`): a user who moved west keeps the entries dated after their new today, and a range
/// must be able to show them (`ClosedRange.shown(today:summaries:)` then cuts the empty days after today).
struct TrendsQueryReader {
    let query: [String: String]
    let today: CalendarDate
    /// The latest day an entry can have.
    let latest: CalendarDate
    private(set) var problems: [String: String] = [:]

    init(_ request: Request, today: CalendarDate, now: Date) {
        var query: [String: String] = [:]
        for (key, value) in request.uri.queryParameters { query[String(key)] = String(value) }
        self.query = query
        self.today = today
        self.latest = max(today, CalendarDate.latestAnywhere(at: now))
    }

    /// `period=7d|30d|90d`, 7d when absent.
    mutating func period() -> TrendPeriod {
        guard let text = query["period"] else { return .week }
        guard let period = TrendPeriod(rawValue: text) else {
            problems["period"] = "Use 7d, 30d or 90d."
            return .week
        }
        return period
    }

    /// The last `days` days ending today (`days` within `limits`, `fallback` when absent).
    mutating func lastDays(fallback: Int, limits: ClosedRange<Int>) -> ClosedRange<CalendarDate> {
        var count = fallback
        if let text = query["days"] {
            if let value = Int(text), limits.contains(value) {
                count = value
            } else {
                problems["days"] = "Use \(limits.lowerBound) to \(limits.upperBound)."
            }
        }
        return today.adding(days: 1 - count)...today
    }

    /// `month=YYYY-MM` (this month when absent): its days up to the latest day an entry can have.
    mutating func month() -> ClosedRange<CalendarDate> {
        var first = today.startOfMonth
        if let text = query["month"] {
            let parts = text.split(separator: "-", omittingEmptySubsequences: false)
            guard text.count == 7, parts.count == 2, let year = Int(parts[0]), let month = Int(parts[1]),
                let start = CalendarDate(year: year, month: month)
            else {
                problems["month"] = "Use a month such as 2026-05."
                return first...today
            }
            guard start <= latest else {
                problems["month"] = "Cannot be in the future."
                return first...today
            }
            first = start
        }
        return first...min(first.adding(days: first.daysInMonth - 1), latest)
    }

    /// `from=YYYY-MM-DD&to=YYYY-MM-DD`, both required: `from` not in the future nor after `to`, at most `maximumDays` days
    /// from `from` to `to` (both included). The days from `from` to `to` cut at the latest day an entry can have.
    mutating func dateRange(maximumDays: Int) -> ClosedRange<CalendarDate> {
        let from = date("from"), to = date("to")
        guard let from, let to else { return today...today }
        // A refused range answers nothing, but is still a valid range (a reversed one would trap).
        if latest < from {
            problems["from"] = "Cannot be in the future."
            return today...today
        }
        if to < from {
            problems["to"] = "Cannot be before from."
            return today...today
        }
        if from.days(until: to) >= maximumDays { problems["to"] = "Use at most \(maximumDays) days from from to to, both included." }
        return from...min(to, latest)
    }

    /// The required date parameter `name`; nil, with the problem noted, when it is absent or not a date.
    private mutating func date(_ name: String) -> CalendarDate? {
        guard let text = query[name] else {
            problems[name] = "is required"
            return nil
        }
        guard let date = CalendarDate(text) else {
            problems[name] = "must be a date as YYYY-MM-DD"
            return nil
        }
        return date
    }

    /// 422 naming every invalid parameter.
    func check() throws {
        guard problems.isEmpty else { throw APIError.invalid(problems) }
    }
}

import ServiceDefaults

extension ClosedRange where Bound == CalendarDate {
    /// The days of this range a report lists: up to today, and after today only up to the last day with an entry (a
    /// user who moved west has entries dated after their new today; the empty days after today are not listed).
    func shown(today: CalendarDate, summaries: [DaySummary]) -> ClosedRange<CalendarDate> {
        guard upperBound > today else { return self }
        let lastEntry = summaries.map(\.date).filter(contains).max()
        let last = Swift.min(upperBound, Swift.max(today, lastEntry ?? today))
        return lowerBound...Swift.max(lowerBound, last)
    }
}

import ServiceDefaults

/// The days the estimate looks at: at most the 28 days ending yesterday, starting at the user's first day with
/// data when that is later.
///
/// Today is left out: its log is usually still incomplete, and a half-logged day would pull the mean intake
/// down. A window shorter than 28 days only happens for a user who started less than 28 days ago; a user who
/// stopped logging keeps the full window, so the unlogged recent days lower the confidence as they should.
struct EstimationWindow: Sendable {
    /// The longest window, in days.
    static let maximumDays = 28

    let from: CalendarDate
    let to: CalendarDate
    /// Intake of every logged day, ascending by date.
    let intakes: [(date: CalendarDate, kcal: Double)]
    /// One weigh-in per day (the mean of several), ascending by date.
    let weighIns: [(date: CalendarDate, kg: Double)]

    /// Picks the window's days out of `days` (any order, any span) for a user whose today is `today`.
    init(days: [ExpenditureDay], today: CalendarDate) {
        let to = today.adding(days: -1)
        let earliest = to.adding(days: 1 - Self.maximumDays)
        var intakeByDate: [CalendarDate: Double] = [:]
        var weighIns: [(date: CalendarDate, kg: Double)] = []
        for day in days where day.date >= earliest && day.date <= to {
            if let kcal = day.intakeCalories, kcal.isFinite, kcal > 0 {
                intakeByDate[day.date, default: 0] += kcal
            }
            if let kg = day.weightKg {
                weighIns.append((day.date, kg))
            }
        }
        self.intakes = intakeByDate.sorted { $0.key < $1.key }.map { (date: $0.key, kcal: $0.value) }
        self.weighIns = WeightTrendSmoother.dailyMeans(weighIns)
        self.from = [intakes.first?.date, self.weighIns.first?.date].compactMap { $0 }.min() ?? earliest
        self.to = to
    }

    /// Days from `from` through `to`.
    var days: Int { from.days(until: to) + 1 }

    var loggedDays: Int { intakes.count }

    /// Days from the first weigh-in through the last, both included; 0 without weigh-ins.
    var weighInSpanDays: Int {
        guard let first = weighIns.first, let last = weighIns.last else { return 0 }
        return first.date.days(until: last.date) + 1
    }

    /// Mean intake of the logged days; nil when none was logged.
    var meanIntake: Double? {
        intakes.isEmpty ? nil : intakes.reduce(0) { $0 + $1.kcal } / Double(intakes.count)
    }

    /// The answer's description of this window.
    var summary: ExpenditureEstimate.Window {
        ExpenditureEstimate.Window(from: from, to: to, days: days, loggedDays: loggedDays, weighIns: weighIns.count)
    }
}

import ServiceDefaults

/// Streaks of logged days (at least one consumed meal) and the milestones they unlock.
///
/// Computed from the set of logged days every time, so a late edit or deletion that breaks a past run
/// changes the answer consistently, whatever order the events arrived in. The current streak is still
/// alive when today has nothing logged yet, as long as yesterday was logged.
struct Streaks: Sendable, Equatable {
    static let milestones = [7, 21, 35, 50, 100, 365]

    var current: Int
    var longest: Int
    /// The last day of the current streak (today or yesterday), nil without one.
    var currentEndsOn: CalendarDate?
    /// The day each reached milestone was first reached.
    var unlocked: [Int: CalendarDate]

    /// - Parameter loggedDays: the user's logged days, any order; days after `today` are ignored.
    init(loggedDays: [CalendarDate], today: CalendarDate) {
        let days = Set(loggedDays.filter { $0 <= today }).sorted()
        var longest = 0
        var unlocked: [Int: CalendarDate] = [:]
        var run = 0
        var previous: CalendarDate?
        for day in days {
            run = previous.map { $0.days(until: day) == 1 } == true ? run + 1 : 1
            previous = day
            longest = max(longest, run)
            if let milestone = Self.milestones.first(where: { $0 == run }), unlocked[milestone] == nil {
                unlocked[milestone] = day
            }
        }
        let alive = previous.map { $0.days(until: today) <= 1 } ?? false
        self.current = alive ? run : 0
        self.currentEndsOn = alive ? previous : nil
        self.longest = longest
        self.unlocked = unlocked
    }
}

/// How a day's consumed calories compare with the user's daily calorie goal: met within 90-110% of it.
///
/// Each day is measured against the goal in force that day (`GoalHistory`), so changing the goal does not re-rate
/// earlier days (docs/APP-GUIDE.md, "Trends and dashboards").
enum GoalStatus: String, Codable, Sendable {
    case met
    case under
    case over
    /// Nothing consumed that day.
    case notLogged = "not_logged"
    /// The user has no calorie goal.
    case noGoal = "no_goal"

    static let metRange: ClosedRange<Double> = 0.9...1.1

    init(_ day: DaySummary, goal: Int?) {
        guard day.isLogged else { self = .notLogged; return }
        guard let goal, goal > 0 else { self = .noGoal; return }
        let ratio = day.calories / Double(goal)
        self = ratio < Self.metRange.lowerBound ? .under : ratio > Self.metRange.upperBound ? .over : .met
    }

    /// Whether the goal was met; nil when the day cannot be rated (no goal or nothing logged).
    var isMet: Bool? {
        switch self {
        case .met: true
        case .under, .over: false
        case .notLogged, .noGoal: nil
        }
    }
}

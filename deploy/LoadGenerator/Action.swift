/// What a user does in one step of a session: a screen of the app that reads, or something the user records.
/// The weights are the mix, in percent of actions: mostly looking at today's dashboard, the meal list and
/// trends, as the four client apps' home screens do on every appearance; an offline-first app (CountMe) pulling the
/// changes feed every few actions; now and then logging food (typed,
/// described in words, or eating a scanned meal), editing it, weighing in or sharing; the app refreshes its
/// token now and then, and a few users sign in again (which meets the gateway's per-address `auth` limit,
/// since every simulated phone comes from this one address: those 429s are intended).
enum Action: CaseIterable, Sendable {
    /// Home: `GET /api/user/stats`, `/api/progress?days=7`, `/api/achievements`, `/api/metrics/daily?days=7`, at once.
    case dashboard
    /// Trends tab: `GET /api/trends?period=7d` and `/api/calendar`, at once.
    case trends
    case mealList
    case mealDetail
    case dayHistory
    case profile
    case foodSearch
    /// An offline-first app syncing: `GET /api/sync/changes` from the user's cursor, page after page until `hasMore`
    /// is false; the first sync of a session is a full download (`since=0`).
    case syncChanges
    /// Someone opens a link a user shared: `GET /api/share/:token` without a token.
    case sharedMealView
    /// A typed entry: `POST /api/meals`.
    case logMeal
    /// A meal described in words: `POST /api/analyze` with a JSON text; stored as scanned.
    case analyzeText
    /// A scanned meal eaten: `POST /api/meals/:id/consume`.
    case consumeMeal
    /// Portions changed: `GET /api/meals/:id`, then `PUT` with its version in `If-Match`.
    case editMeal
    case logWeight
    case shareMeal
    case refreshToken
    case login

    /// Percent of actions.
    var weight: Double {
        switch self {
        case .dashboard: 22
        case .trends: 8
        case .mealList: 8
        case .mealDetail: 8
        case .dayHistory: 3
        case .profile: 4
        case .foodSearch: 7
        case .syncChanges: 10
        case .sharedMealView: 6
        case .logMeal: 6
        case .analyzeText: 4
        case .consumeMeal: 3
        case .editMeal: 2
        case .logWeight: 3
        case .shareMeal: 2
        case .refreshToken: 3
        case .login: 1
        }
    }

    /// Routes whose 429s are intended: sign-ins beyond the `auth` policy's budget for this address.
    static let intendedRateLimitedRoutes: Set<String> = ["POST /api/auth/login"]

    /// The most requests one action sends (the dashboard's), for sizing the connection pool.
    static let widestFanOut = 4

    /// An action drawn by weight.
    static func pick() -> Action {
        var roll = Double.random(in: 0..<allCases.reduce(0) { $0 + $1.weight })
        for action in allCases {
            roll -= action.weight
            if roll < 0 { return action }
        }
        return .dashboard
    }
}

import Foundation

/// When an account has enough history for its reports to count and its logging to confirm others' products: known to
/// foods for `minimumAge` (from the first event of theirs it consumed; registration publishes one) and with at least
/// `minimumLoggedMeals` consumed meals now (`FOODS_ESTABLISHED_ACCOUNT_MIN_AGE_HOURS`, default 72, and
/// `FOODS_ESTABLISHED_ACCOUNT_MIN_MEALS`, default 5). An account foods never heard of is not established, unless both
/// are 0 (the rule is off).
struct EstablishedAccountRule: Sendable, Equatable {
    var minimumAge: TimeInterval = 72 * 3600
    var minimumLoggedMeals = 5

    /// Whether every account counts, known or not.
    var isOff: Bool { minimumAge <= 0 && minimumLoggedMeals <= 0 }

    /// The latest first sighting of an account established at `now`.
    func seenBy(_ now: Date) -> Date { now.addingTimeInterval(-minimumAge) }

    /// Whether `account` (nil: foods knows nothing of it) is established at `now`.
    func isEstablished(_ account: KnownAccount?, now: Date) -> Bool {
        guard let account else { return isOff }
        return isOff || (account.firstSeenAt <= seenBy(now) && account.loggedMeals >= minimumLoggedMeals)
    }
}

import APIContracts
import Foundation

/// A user's `historyRetentionDays`, as every owning service applies it: the history purges delete what is dated
/// before `firstKeptDate`, and the imports refuse it (storing it would only have it purged within the hour).
public struct HistoryRetention: Sendable, Equatable {
    /// How many days of history the user keeps.
    public var days: Int
    /// The user's zone, which decides their "today".
    public var timeZone: TimeZone

    public init(days: Int, timeZone: TimeZone) {
        self.days = days
        self.timeZone = timeZone
    }

    /// The earliest date kept at `now`: today in the user's zone minus `days`.
    public func firstKeptDate(now: Date) -> CalendarDate { CalendarDate(now, in: timeZone).adding(days: -days) }

    /// The problem of an imported item dated before `firstKeptDate`.
    public func refusal(of date: CalendarDate, field: String, now: Date) -> APIError? {
        guard date < firstKeptDate(now: now) else { return nil }
        return APIError(
            .unprocessableContent, code: "beyond_history_retention",
            message: "Older than the \(days) days of history this account keeps (historyRetentionDays); not stored.",
            details: [field: "before \(firstKeptDate(now: now))"])
    }
}

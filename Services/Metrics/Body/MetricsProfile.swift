import Foundation
import ServiceDefaults
import SyncContracts

/// What the metrics service knows of a user from `user.profile_updated`: the zone that decides their
/// "today" and the unit they prefer. Before the first profile event arrives: kilograms and UTC, and dates
/// up to today anywhere on Earth are accepted so that a user ahead of UTC is not refused their own today.
struct MetricsProfile: Sendable, Equatable {
    var weightUnit: WeightUnit
    var timeZone: TimeZone
    var isKnown: Bool
    /// How much history the user keeps (`historyRetentionDays`); nil keeps everything.
    var retention: HistoryRetention? = nil

    static let unknown = MetricsProfile(weightUnit: .kg, timeZone: TimeZone(identifier: "UTC")!, isKnown: false)

    /// The zone furthest ahead of UTC (UTC+14).
    private static let earliestZone = TimeZone(identifier: "Pacific/Kiritimati")!

    func today(now: Date) -> CalendarDate { CalendarDate(now, in: timeZone) }

    /// The latest date a measurement may have.
    func latestAllowedDate(now: Date) -> CalendarDate { CalendarDate(now, in: isKnown ? timeZone : Self.earliestZone) }
}

import Foundation

extension Calendar {
    /// The Gregorian calendar in UTC, for seeding whole past days.
    static let utc: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar
    }()
}

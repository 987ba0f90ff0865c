import Foundation

/// A calendar month in UTC, the period vision usage is counted and budgeted in (providers bill in UTC), written
/// `YYYY-MM`.
struct UsageMonth: Sendable, Equatable {
    var year: Int
    var month: Int

    /// The month `YYYY-MM` names (years 2000 to 9999); nil for anything else.
    init?(_ text: String) {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard text.count == 7, parts.count == 2, parts[0].count == 4, parts[1].count == 2, parts.allSatisfy({ $0.allSatisfy(\.isASCII) }),
            let year = Int(parts[0]), let month = Int(parts[1]), (2000...9999).contains(year), (1...12).contains(month)
        else { return nil }
        self.year = year
        self.month = month
    }

    /// The UTC month `date` falls in.
    init(containing date: Date) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let parts = calendar.dateComponents([.year, .month], from: date)
        year = parts.year!
        month = parts.month!
    }

    /// `YYYY-MM`.
    var text: String { String(format: "%04d-%02d", year, month) }

    /// `YYYY-MM-01`, the month's key in `vision_usage.month`.
    var firstDay: String { text + "-01" }
}

/// A day of the week by its English name, as the API spells it (`weekStart`: the first day of the user's week).
public enum Weekday: String, Codable, Sendable, CaseIterable {
    case monday, tuesday, wednesday, thursday, friday, saturday, sunday

    /// ISO weekday: 1 Monday ... 7 Sunday.
    public var isoNumber: Int { Self.allCases.firstIndex(of: self)! + 1 }

    /// The names, in the order of an ISO week, for messages and documents.
    public static let names = allCases.map(\.rawValue)
}

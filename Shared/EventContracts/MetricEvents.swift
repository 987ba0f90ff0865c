import Foundation

/// `weight.logged`: the user's body metrics for one calendar day were recorded, changed or removed; always the
/// day's full record (a day whose weight and ketones were both removed has both nil).
public struct WeightLogged: EventPayload {
    public static let topic = Topic.weightLogged
    public static let schemaVersion = 1

    public var userId: UUID
    /// The user's calendar date, `YYYY-MM-DD`.
    public var date: String
    public var weightKg: Double?
    /// Blood ketones in mmol/L, when measured.
    public var ketonesMmolPerLiter: Double?
    /// The user's note for the day.
    public var notes: String?
    public var loggedAt: Date
    /// Increases with every change to that day, so consumers can ignore stale copies.
    public var version: Int

    public init(
        userId: UUID, date: String, weightKg: Double?, ketonesMmolPerLiter: Double?, notes: String? = nil, loggedAt: Date, version: Int
    ) {
        self.userId = userId
        self.date = date
        self.weightKg = weightKg
        self.ketonesMmolPerLiter = ketonesMmolPerLiter
        self.notes = notes
        self.loggedAt = loggedAt
        self.version = version
    }
}

/// `water.logged`: the user's water intake of one calendar day changed (an entry logged, edited or removed); always the
/// day's total over its entries (0 with no entries once the last one is removed).
public struct WaterLogged: EventPayload {
    public static let topic = Topic.waterLogged
    public static let schemaVersion = 1

    public var userId: UUID
    /// The user's calendar date, `YYYY-MM-DD`.
    public var date: String
    /// The sum of the day's entries.
    public var totalMillilitres: Int
    /// How many entries the day has.
    public var entryCount: Int
    public var loggedAt: Date
    /// Increases with every change to that day's water, so consumers can ignore stale copies.
    public var version: Int

    public init(userId: UUID, date: String, totalMillilitres: Int, entryCount: Int, loggedAt: Date, version: Int) {
        self.userId = userId
        self.date = date
        self.totalMillilitres = totalMillilitres
        self.entryCount = entryCount
        self.loggedAt = loggedAt
        self.version = version
    }
}

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

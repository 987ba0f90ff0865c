/// `POST /api/metrics/weight`.
struct WeightRequest: Decodable, Sendable {
    /// `YYYY-MM-DD`; today in the user's zone when absent.
    var date: String?
    var weight: Double
    /// kg or lbs; the user's preferred unit when absent.
    var unit: String?
    var notes: String?
    /// When the client made the change (ISO 8601), for last-write-wins; the server's time when absent.
    var modifiedAt: String?
}

/// `POST /api/metrics/ketones`.
struct KetonesRequest: Decodable, Sendable {
    var date: String?
    /// Blood ketones in mmol/L.
    var level: Double
    var notes: String?
    /// When the client made the change (ISO 8601), for last-write-wins; the server's time when absent.
    var modifiedAt: String?
}

/// `POST /api/metrics/weight`.
struct WeightRequest: Decodable, Sendable {
    /// `YYYY-MM-DD`; today in the user's zone when absent.
    var date: String?
    var weight: Double
    /// kg or lbs; the user's preferred unit when absent.
    var unit: String?
    var notes: String?
}

/// `POST /api/metrics/ketones`.
struct KetonesRequest: Decodable, Sendable {
    var date: String?
    /// Blood ketones in mmol/L.
    var level: Double
    var notes: String?
}

/// The health rating scale of meals, items and days (the `healthRating` strings of meal events).
/// Ratings: nutritious 90-100, good 70-89, fair 50-69, limited 0-49.
public enum HealthRating: String, Codable, Sendable, CaseIterable {
    case nutritious
    case good
    case fair
    case limited

    /// The rating a 0-100 health score earns.
    public init(score: Int) {
        switch score {
        case 90...: self = .nutritious
        case 70..<90: self = .good
        case 50..<70: self = .fair
        default: self = .limited
        }
    }

    /// How the app shows it ("Nutritious").
    public var label: String {
        switch self {
        case .nutritious: "Nutritious"
        case .good: "Good"
        case .fair: "Fair"
        case .limited: "Limited"
        }
    }
}

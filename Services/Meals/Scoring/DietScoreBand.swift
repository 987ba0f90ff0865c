/// Bands: green 80-100, yellow 60-79, red 0-59.
enum DietScoreBand: String, Codable, Sendable {
    case green
    case yellow
    case red

    /// The band a 0-100 score falls in.
    init(score: Int) {
        switch score {
        case 80...: self = .green
        case 60..<80: self = .yellow
        default: self = .red
        }
    }
}

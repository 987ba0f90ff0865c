/// How well one meal fits the user's diet: a 0-100 score, its band and one specific sentence saying why.
struct DietScore: Codable, Sendable, Equatable {
    var diet: DietPreference
    /// 0-100, higher fits better.
    var score: Int
    var band: DietScoreBand
    var explanation: String

    init(diet: DietPreference, score: Int, band: DietScoreBand, explanation: String) {
        self.diet = diet
        self.score = score
        self.band = band
        self.explanation = explanation
    }

    /// A score from a rule's raw points, clamped to 0-100 and rounded, with the band that goes with it.
    init(diet: DietPreference, points: Double, explanation: String) {
        let score = Int(score: points)
        self.init(diet: diet, score: score, band: DietScoreBand(score: score), explanation: explanation)
    }
}

import EventContracts

/// How nourishing an item is (0-100) and the three parts it is made of, each 0-100.
struct HealthScore: Codable, Sendable, Equatable {
    var score: Int
    var nutrientDensity: Int
    var processing: Int
    var goalAlignment: Int
    var rating: HealthRating

    init(score: Int, nutrientDensity: Int, processing: Int, goalAlignment: Int, rating: HealthRating) {
        self.score = score
        self.nutrientDensity = nutrientDensity
        self.processing = processing
        self.goalAlignment = goalAlignment
        self.rating = rating
    }

    /// The score from its parts: round(0.33 × nutrient density + 0.33 × processing + 0.34 × goal alignment).
    init(nutrientDensity: Int, processing: Int, goalAlignment: Int) {
        let weighted = 0.33 * Double(nutrientDensity) + 0.33 * Double(processing) + 0.34 * Double(goalAlignment)
        let score = Int(score: weighted)
        self.init(
            score: score, nutrientDensity: nutrientDensity, processing: processing, goalAlignment: goalAlignment,
            rating: HealthRating(score: score))
    }
}

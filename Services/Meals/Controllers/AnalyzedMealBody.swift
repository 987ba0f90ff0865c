import Foundation
import Hummingbird

/// `POST /api/analyze` answer: the meal as every meal route answers it, and `usageWarning` when the user's own vision
/// keys have reached 80% of their monthly budget (`VisionUsageWarning`).
struct AnalyzedMealBody: ResponseEncodable {
    var meal: MealBody
    var usageWarning: VisionUsageWarning?

    enum CodingKeys: String, CodingKey {
        case usageWarning
    }

    /// The meal's fields, then `usageWarning` beside them when there is one.
    func encode(to encoder: any Encoder) throws {
        try meal.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(usageWarning, forKey: .usageWarning)
    }
}

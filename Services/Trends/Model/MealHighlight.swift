import Foundation
import ServiceDefaults

/// A consumed meal as the best and worst lists show it.
struct MealHighlight: Codable, Sendable, Equatable {
    var mealId: UUID
    var title: String
    var date: CalendarDate
    var eatenAt: Date
    var mealType: String?
    var calories: Double
    var dietScore: Int
    var dietBand: String
    var healthScore: Int?
    var healthRating: String?
}

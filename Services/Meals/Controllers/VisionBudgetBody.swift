import Foundation
import Hummingbird

/// `PUT /api/users/vision-usage/budget` body and answer: the monthly budget in US dollars for the estimated cost of the
/// user's own vision keys.
struct VisionBudgetBody: ResponseCodable, Equatable {
    var monthlyBudgetUsd: Double?
}

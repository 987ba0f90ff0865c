/// The diets a user can choose (raw values are the API/profile strings).
enum DietPreference: String, Codable, Sendable, CaseIterable {
    case keto
    case paleo
    case vegan
    case vegetarian
    case mediterranean
    case lowCarb = "low_carb"
    case balanced
    case custom

    /// How sentences name the diet ("not vegan", "in keto range").
    var displayName: String {
        switch self {
        case .lowCarb: "low-carb"
        default: rawValue
        }
    }
}

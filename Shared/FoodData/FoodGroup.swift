/// The USDA Standard Reference food group, read from the first two digits of a food id.
public enum FoodGroup: String, Codable, Sendable, CaseIterable {
    case dairyAndEgg = "01"
    case spicesAndHerbs = "02"
    case babyFoods = "03"
    case fatsAndOils = "04"
    case poultry = "05"
    case soupsAndSauces = "06"
    case sausagesAndLuncheonMeats = "07"
    case breakfastCereals = "08"
    case fruits = "09"
    case pork = "10"
    case vegetables = "11"
    case nutsAndSeeds = "12"
    case beef = "13"
    case beverages = "14"
    case fishAndShellfish = "15"
    case legumes = "16"
    case lambVealAndGame = "17"
    case bakedProducts = "18"
    case sweets = "19"
    case cerealGrainsAndPasta = "20"
    case fastFoods = "21"
    case mealsAndEntrees = "22"
    case beefProducts = "23"
    case snacks = "25"
    case traditionalFoods = "35"
    case restaurantFoods = "36"
    case other = "99"

    /// The group of a USDA id such as `01123`; `other` for groups the scorers do not distinguish.
    public init(foodId: String) {
        self = FoodGroup(rawValue: String(foodId.prefix(2))) ?? .other
    }

    /// A readable name for API answers.
    public var displayName: String {
        switch self {
        case .dairyAndEgg: "Dairy and egg products"
        case .spicesAndHerbs: "Spices and herbs"
        case .babyFoods: "Baby foods"
        case .fatsAndOils: "Fats and oils"
        case .poultry: "Poultry products"
        case .soupsAndSauces: "Soups, sauces and gravies"
        case .sausagesAndLuncheonMeats: "Sausages and luncheon meats"
        case .breakfastCereals: "Breakfast cereals"
        case .fruits: "Fruits and fruit juices"
        case .pork: "Pork products"
        case .vegetables: "Vegetables and vegetable products"
        case .nutsAndSeeds: "Nut and seed products"
        case .beef, .beefProducts: "Beef products"
        case .beverages: "Beverages"
        case .fishAndShellfish: "Finfish and shellfish products"
        case .legumes: "Legumes and legume products"
        case .lambVealAndGame: "Lamb, veal and game products"
        case .bakedProducts: "Baked products"
        case .sweets: "Sweets"
        case .cerealGrainsAndPasta: "Cereal grains and pasta"
        case .fastFoods: "Fast foods"
        case .mealsAndEntrees: "Meals, entrees and side dishes"
        case .snacks: "Snacks"
        case .traditionalFoods: "American Indian and Alaska Native foods"
        case .restaurantFoods: "Restaurant foods"
        case .other: "Other"
        }
    }

    /// Groups whose foods are all meat.
    public var isMeat: Bool { [.poultry, .sausagesAndLuncheonMeats, .pork, .beef, .beefProducts, .lambVealAndGame].contains(self) }
}

/// What the diet and health scorers need to know about a food beyond its nutrients, derived once at import
/// from its USDA group and the words of its name (see `init(group:name:)` for the rules).
public struct FoodTraits: Codable, Sendable, Equatable {
    public var isAnimal: Bool
    public var isMeat: Bool
    /// Meat that is not poultry (beef, pork, lamb, game, most sausages), which Mediterranean eating limits;
    /// false when the caller cannot tell, so unknown meat is judged as poultry rather than blamed.
    public var isRedMeat: Bool
    public var isFish: Bool
    public var isDairy: Bool
    public var isEgg: Bool
    public var isGrain: Bool
    public var isLegume: Bool
    public var hasAddedSugar: Bool
    public var processing: ProcessingLevel

    public init(
        isAnimal: Bool, isMeat: Bool, isRedMeat: Bool = false, isFish: Bool, isDairy: Bool, isEgg: Bool, isGrain: Bool,
        isLegume: Bool, hasAddedSugar: Bool, processing: ProcessingLevel
    ) {
        self.isAnimal = isAnimal
        self.isMeat = isMeat
        self.isRedMeat = isRedMeat
        self.isFish = isFish
        self.isDairy = isDairy
        self.isEgg = isEgg
        self.isGrain = isGrain
        self.isLegume = isLegume
        self.hasAddedSugar = hasAddedSugar
        self.processing = processing
    }

    /// Derives the traits of a table food. The group decides for single-ingredient groups (beef is meat,
    /// fish is fish); mixed groups (fast foods, entrees, soups, baked goods) are read from the name's words,
    /// so "Pizza, cheese" is grain and dairy and "Fast foods, burrito, with beans" is grain and legume.
    public init(group: FoodGroup, name: String) {
        let words = Set(FoodNameTokenizer.words(name))
        func mentions(_ vocabulary: Set<String>) -> Bool { !words.isDisjoint(with: vocabulary) }
        let plantBased = mentions(Self.plantAlternativeWords)
        let plantMilk = mentions(Self.plantMilkWords) && words.isDisjoint(with: ["cheese", "butter", "whey", "buttermilk"])

        let isFish = group == .fishAndShellfish || (!plantBased && mentions(Self.fishWords))
        let isMeat = group.isMeat || (!plantBased && group != .fishAndShellfish && mentions(Self.meatWords))
        let isRedMeat = isMeat && group != .poultry && !mentions(Self.poultryWords)
        let isEgg =
            (group == .dairyAndEgg && words.contains("egg") && !words.contains("eggnog"))
            || (!plantBased && words.contains("egg") && !words.contains("substitute"))
        let isDairy =
            (group == .dairyAndEgg && !isEgg) || (!plantBased && !plantMilk && mentions(Self.dairyWords) && !Self.isNonDairyButter(words))
        let isLegume = group == .legumes || mentions(Self.legumeWords)
        let isGrain = [.breakfastCereals, .cerealGrainsAndPasta, .bakedProducts].contains(group) || mentions(Self.grainWords)
        let hasAddedSugar =
            group == .sweets || (mentions(Self.sugarWords) && !words.contains("unsweetened") && !words.contains("sugar-free"))
        let isAnimal = isMeat || isFish || isDairy || isEgg || mentions(Self.otherAnimalWords)
        self.init(
            isAnimal: isAnimal, isMeat: isMeat, isRedMeat: isRedMeat, isFish: isFish, isDairy: isDairy, isEgg: isEgg,
            isGrain: isGrain, isLegume: isLegume, hasAddedSugar: hasAddedSugar,
            processing: Self.processing(group: group, words: words, hasAddedSugar: hasAddedSugar))
    }

    /// NOVA-like level: the group's usual level, raised by words that mean industrial processing and
    /// lowered for plain whole foods inside processed groups (plain oats, plain yogurt, fluid milk).
    private static func processing(group: FoodGroup, words: Set<String>, hasAddedSugar: Bool) -> ProcessingLevel {
        if !words.isDisjoint(with: ultraProcessedWords) { return .ultraProcessed }
        var level: ProcessingLevel =
            switch group {
            case .fruits, .vegetables, .nutsAndSeeds, .poultry, .pork, .beef, .beefProducts, .lambVealAndGame,
                .fishAndShellfish, .legumes, .cerealGrainsAndPasta, .spicesAndHerbs, .traditionalFoods:
                .unprocessed
            case .fatsAndOils: .culinaryIngredient
            case .dairyAndEgg, .bakedProducts, .soupsAndSauces, .babyFoods, .restaurantFoods, .beverages, .other: .processed
            case .sausagesAndLuncheonMeats, .sweets, .fastFoods, .mealsAndEntrees, .snacks, .breakfastCereals: .ultraProcessed
            }
        if group == .dairyAndEgg && !words.isDisjoint(with: ["milk", "egg", "yogurt", "kefir"]) && !hasAddedSugar {
            level = .unprocessed
        }
        if group == .dairyAndEgg && words.contains("butter") { level = .culinaryIngredient }
        if group == .breakfastCereals && !words.isDisjoint(with: ["oat", "oatmeal", "bran", "farina", "grits"]) && !hasAddedSugar {
            level = .unprocessed
        }
        if group == .beverages && !words.isDisjoint(with: ["water", "coffee", "tea", "juice"]) && !hasAddedSugar {
            level = .unprocessed
        }
        if group == .bakedProducts && !words.isDisjoint(with: ["cookie", "cake", "pastry", "doughnut", "danish", "croissant", "cracker", "pie"]) {
            level = .ultraProcessed
        }
        if level < .processed && !words.isDisjoint(with: processedWords) { level = .processed }
        if hasAddedSugar && level < .processed { level = .processed }
        return level
    }

    /// "Peanut butter", "cocoa butter", "apple butter" are not dairy.
    private static func isNonDairyButter(_ words: Set<String>) -> Bool {
        words.contains("butter") && !words.isDisjoint(with: ["peanut", "almond", "cashew", "cocoa", "apple", "sesame", "nut", "shea", "seed"])
            && words.isDisjoint(with: ["milk", "cheese", "cream", "yogurt", "whey", "buttermilk"])
    }

    private static let meatWords: Set<String> = [
        "beef", "pork", "chicken", "turkey", "ham", "bacon", "sausage", "lamb", "veal", "meat", "meatball", "pepperoni",
        "salami", "frankfurter", "hotdog", "bologna", "hamburger", "cheeseburger", "burger", "steak", "duck", "goose",
        "venison", "bison", "liver", "chorizo", "prosciutto", "pastrami", "jerky",
    ]
    private static let poultryWords: Set<String> = ["chicken", "turkey", "duck", "goose", "poultry", "hen", "quail", "pheasant"]
    private static let fishWords: Set<String> = [
        "fish", "tuna", "salmon", "shrimp", "crab", "cod", "anchovy", "clam", "oyster", "lobster", "sardine", "trout",
        "tilapia", "haddock", "halibut", "mackerel", "herring", "scallop", "mussel", "squid", "octopus", "pollock",
        "catfish", "flounder", "roe", "caviar", "sushi",
    ]
    private static let dairyWords: Set<String> = [
        "milk", "cheese", "cheeseburger", "butter", "cream", "yogurt", "whey", "casein", "buttermilk", "kefir", "ghee",
        "mozzarella", "cheddar", "parmesan", "ricotta", "custard", "pudding", "icecream", "lactose", "alfredo",
    ]
    private static let legumeWords: Set<String> = [
        "bean", "lentil", "chickpea", "hummus", "tofu", "soy", "soybean", "soymilk", "peanut", "pea", "edamame", "tempeh",
        "miso", "falafel", "garbanzo",
    ]
    private static let grainWords: Set<String> = [
        "bread", "pasta", "rice", "wheat", "noodle", "pizza", "bun", "tortilla", "cracker", "oat", "oatmeal", "barley",
        "cereal", "flour", "biscuit", "muffin", "bagel", "croissant", "roll", "spaghetti", "macaroni", "couscous", "rye",
        "cornmeal", "granola", "pancake", "waffle", "burrito", "sandwich", "taco", "lasagna", "dumpling", "pretzel",
        "quinoa", "millet", "bulgur", "sorghum", "popcorn", "breaded", "toast", "crouton", "stuffing",
    ]
    private static let sugarWords: Set<String> = [
        "sugar", "sweetened", "syrup", "candy", "candie", "chocolate", "honey", "molasses", "frosted", "frosting", "jam",
        "jelly", "marmalade", "soda", "cola", "cookie", "cake", "doughnut", "dessert", "glazed", "caramel",
        "icing", "sherbet", "sorbet", "pudding",
    ]
    private static let otherAnimalWords: Set<String> = ["honey", "gelatin", "lard", "tallow", "anchovy", "egg"]
    private static let plantAlternativeWords: Set<String> = [
        "imitation", "meatless", "vegetarian", "vegan", "veggie", "substitute", "nondairy",
    ]
    /// Words that make "milk", "cream" or "yogurt" a plant drink (coconut milk, soy yogurt).
    private static let plantMilkWords: Set<String> = ["soymilk", "coconut", "almond", "rice", "oat", "soy", "cashew"]
    private static let ultraProcessedWords: Set<String> = [
        "imitation", "instant", "flavored", "candy", "candie", "chip", "frosted", "nugget", "hotdog",
        "frankfurter", "bologna", "pepperoni", "salami", "soda", "cola", "margarine", "entree", "microwave",
        "processed", "prepackaged", "snack", "artificial", "dinner", "mix",
    ]
    private static let processedWords: Set<String> = [
        "canned", "cured", "smoked", "salted", "pickled", "fried", "breaded", "sweetened", "toasted", "bread", "cheese",
    ]
}

/// What the simulated users eat, type and search for: table foods by USDA id (the everyday pins of the meals
/// service), text descriptions its analyser reads, and search words (one with a typo, as people type).
enum SampleFood {
    /// A manual entry: items by table food id and grams.
    struct Meal: Sendable {
        var title: String
        var mealType: String
        var items: [(foodId: String, grams: Double)]

        /// The `items` of a `POST /api/meals` or `PUT /api/meals/:id` body, portions scaled by `scale`.
        func itemsJSON(scale: Double = 1) -> [[String: any Sendable]] {
            items.map { ["foodId": $0.foodId, "grams": ($0.grams * scale).rounded()] }
        }
    }

    /// One meal per slot of a day (breakfast, lunch, dinner), and snacks.
    static let breakfasts = [
        Meal(title: "Oatmeal with banana", mealType: "breakfast", items: [("08121", 240), ("09040", 118)]),
        Meal(title: "Eggs on toast", mealType: "breakfast", items: [("01123", 100), ("18070", 60)]),
        Meal(title: "Yogurt and almonds", mealType: "breakfast", items: [("01116", 200), ("12061", 28)]),
    ]
    static let lunches = [
        Meal(title: "Chicken, rice and salad", mealType: "lunch", items: [("05064", 150), ("20045", 180), ("11253", 80)]),
        Meal(title: "Tuna salad", mealType: "lunch", items: [("15121", 120), ("11253", 120), ("04053", 10)]),
        Meal(title: "Lentils and rice", mealType: "lunch", items: [("16070", 200), ("20045", 150)]),
    ]
    static let dinners = [
        Meal(title: "Salmon and potato", mealType: "dinner", items: [("15237", 150), ("11828", 200), ("11253", 60)]),
        Meal(title: "Spaghetti", mealType: "dinner", items: [("20121", 250), ("23568", 100)]),
        Meal(title: "Tofu and rice", mealType: "dinner", items: [("16426", 150), ("20037", 180)]),
    ]
    static let snacks = [
        Meal(title: "Banana", mealType: "snack", items: [("09040", 118)]),
        Meal(title: "Peanut butter toast", mealType: "snack", items: [("18070", 30), ("16098", 32)]),
    ]

    /// Descriptions for `POST /api/analyze` as text.
    static let descriptions = [
        "2 eggs and a slice of toast",
        "a cup of white rice and 150 g chicken breast",
        "a banana and a cup of plain yogurt",
        "a bowl of oatmeal with milk",
        "150 g salmon with a baked potato",
        "a burger and a glass of beer",
    ]

    /// Words for `GET /api/foods/search`.
    static let searches = ["chicken", "banana", "rice", "greek yogurt", "oatmeal", "brocoli", "salmon", "apple", "peanut butter", "whole milk"]

    static func anyMeal() -> Meal { (breakfasts + lunches + dinners + snacks).randomElement()! }
}

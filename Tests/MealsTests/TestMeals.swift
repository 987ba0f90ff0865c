import Testing

@testable import MealsService

/// Portions and meals of real USDA foods that the scoring tests judge, named the way a user would log them.
enum TestMeals {
    /// `grams` of table food `id`, called `name` in sentences.
    static func portion(_ id: String, _ grams: Double, _ name: String) throws -> ScorableItem {
        ScorableItem(food: try FoodTable.food(id), grams: grams, name: name)
    }

    /// Two eggs, three rashers of bacon and a knob of butter: about 73% fat, 1% net carbs.
    static func ketoBreakfast() throws -> [ScorableItem] {
        [try portion("01001", 10, "butter"), try portion("01123", 100, "eggs"), try portion("10124", 30, "bacon")]
    }

    /// A big bowl of white rice with a glass of orange juice: almost all energy from carbs.
    static func riceAndJuice() throws -> [ScorableItem] {
        [try portion("20045", 300, "white rice"), try portion("09206", 250, "orange juice")]
    }

    static func steak() throws -> [ScorableItem] {
        [try portion("13443", 250, "steak")]
    }

    static func lentilsAndRice() throws -> [ScorableItem] {
        [try portion("16070", 200, "lentils"), try portion("20045", 150, "white rice")]
    }

    /// A big salad with one slice of cheddar.
    static func saladWithCheese() throws -> [ScorableItem] {
        [
            try portion("11251", 200, "romaine"), try portion("11529", 100, "tomatoes"), try portion("11205", 100, "cucumber"),
            try portion("01009", 20, "cheddar cheese"),
        ]
    }

    static func cheesePizza() throws -> [ScorableItem] {
        [try portion("21224", 250, "cheese pizza")]
    }

    static func salmonAndBroccoli() throws -> [ScorableItem] {
        [try portion("15237", 150, "salmon"), try portion("11090", 200, "broccoli")]
    }

    static func salmonWithOliveOilAndVegetables() throws -> [ScorableItem] {
        [
            try portion("15237", 150, "salmon"), try portion("04053", 10, "olive oil"), try portion("11090", 150, "broccoli"),
            try portion("11529", 100, "tomatoes"),
        ]
    }

    static func hotDog() throws -> [ScorableItem] {
        [try portion("21118", 100, "hot dog")]
    }

    /// Roast chicken breast or lean steak with broccoli, brown rice and olive oil: the same plate, only the meat differs.
    static func plate(withMeat id: String, named name: String) throws -> [ScorableItem] {
        [
            try portion(id, 150, name), try portion("11090", 150, "broccoli"), try portion("04053", 10, "olive oil"),
            try portion("20037", 150, "brown rice"),
        ]
    }

    static func chickenPlate() throws -> [ScorableItem] { try plate(withMeat: "05064", named: "chicken breast") }
    static func steakPlate() throws -> [ScorableItem] { try plate(withMeat: "13443", named: "steak") }
}

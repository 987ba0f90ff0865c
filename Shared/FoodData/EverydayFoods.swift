/// The table food people mean by the most common everyday words. USDA names are precise ("Milk, whole,
/// 3.25% milkfat"), so ranking alone can pick sheep's milk for "milk" or almond oil for "almonds"; these
/// few dozen pins make the everyday meaning win. A phrase is pinned when its words, made singular, equal
/// a key exactly; anything else is ranked as usual.
enum EverydayFoods {
    static let pins: [String: String] = [
        "milk": "01077", "whole milk": "01077", "butter": "01001", "cheese": "01009", "cheddar": "01009",
        "cheddar cheese": "01009", "yogurt": "01116", "plain yogurt": "01116", "egg": "01123",
        "rice": "20045", "white rice": "20045", "brown rice": "20037", "oatmeal": "08121", "porridge": "08121",
        "pasta": "20100", "macaroni": "20100", "spaghetti": "20121", "bread": "18069", "white bread": "18069",
        "toast": "18070", "coffee": "14209", "tea": "14355", "black tea": "14355", "water": "14411",
        "beer": "14003", "wine": "14096", "red wine": "14096", "sugar": "19335", "olive oil": "04053",
        "chicken": "05013", "chicken breast": "05064", "salmon": "15237", "tuna": "15121", "steak": "13000",
        "beef": "23568", "ground beef": "23568", "bacon": "10124", "hamburger": "21107", "burger": "21107",
        "pizza": "21224", "almond": "12061", "walnut": "12155", "peanut": "16087", "peanut butter": "16098",
        "lentil": "16070", "black bean": "16015", "bean": "16015", "tofu": "16426", "salad": "11253", "lettuce": "11253",
        "potato": "11828", "baked potato": "11828", "avocado": "09037", "banana": "09040",
    ]

    /// The pinned food id for `phrase`, if its words are exactly a key.
    static func pinnedId(for phrase: String) -> String? {
        let words = FoodNameTokenizer.words(phrase).filter { !["a", "an", "the", "of", "some"].contains($0) }
        return pins[words.joined(separator: " ")]
    }
}

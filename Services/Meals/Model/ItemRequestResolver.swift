import FoodData
import Foundation
import ServiceDefaults

/// Validates client-written items and turns them into drafts; every problem is reported at once as a 422
/// naming the field (`items[1].grams`). A product item names a product meals knows (from `food.product_changed`;
/// one held after reports only by its author and those who logged it before) with `grams` (millilitres for a drink) or `servings` (by its label's
/// serving size; one serving when neither is given), and nothing else but a `name` (no values, foodId, quantity or unit). Bounds: 1 to 50 items; grams from 0.1 to 5,000 per item;
/// quantity above 0 and at most 1,000; calories at most 10,000 per item; no negative or non-finite value;
/// protein, carbs and fat together, and fibre, sugars and saturated fat each, no heavier than the item; sodium at
/// most 100,000 mg (so totals stay finite). Calories that disagree with the macros are
/// accepted but flagged on the item (`calories_inconsistent_with_macros`) for the user to review.
enum ItemRequestResolver {
    static let maxItems = 50
    static let maxGrams = 5000.0
    /// A pinch of salt; below it an item's per-100-g figures (what its health score reads) run to billions.
    static let minGrams = 0.1
    static let maxCalories = 10000.0
    static let maxSodiumMilligrams = 100_000.0

    static func resolve(_ requests: [ItemRequest], foods: ItemFoods, caller: UUID, field: String = "items") throws -> [MealItemDraft] {
        var problems: [String: String] = [:]
        if requests.isEmpty { problems[field] = "Give at least one item." }
        if requests.count > maxItems { problems[field] = "At most \(maxItems) items per meal." }
        var drafts: [MealItemDraft] = []
        for (index, request) in requests.prefix(maxItems).enumerated() {
            let path = "\(field)[\(index)]"
            if let draft = resolve(request, foods: foods, caller: caller, path: path, problems: &problems) { drafts.append(draft) }
        }
        guard problems.isEmpty else { throw APIError.invalid(problems) }
        return drafts
    }

    private static func resolve(
        _ request: ItemRequest, foods: ItemFoods, caller: UUID, path: String, problems: inout [String: String]
    ) -> MealItemDraft? {
        let before = problems.count
        if let grams = request.grams, !(grams >= minGrams && grams <= maxGrams && grams.isFinite) {
            problems["\(path).grams"] = "Must be at least \(minGrams) and at most \(Int(maxGrams)) g."
        }
        if let quantity = request.quantity, !(quantity > 0 && quantity <= 1000 && quantity.isFinite) {
            problems["\(path).quantity"] = "Must be above 0 and at most 1000."
        }
        let name = request.name?.trimmingCharacters(in: .whitespacesAndNewlines)
        if let name, name.isEmpty || name.count > 200 { problems["\(path).name"] = "Must be 1 to 200 characters." }
        for (field, value) in request.values {
            guard let value else { continue }
            if !value.isFinite || value < 0 { problems["\(path).\(field)"] = "Must be a number of at least 0." }
        }
        if let calories = request.calories, calories > maxCalories {
            problems["\(path).calories"] = "At most \(Int(maxCalories)) kcal per item."
        }

        if let servings = request.servings, !(servings > 0 && servings <= 100 && servings.isFinite) {
            problems["\(path).servings"] = "Must be above 0 and at most 100."
        }
        if let productId = request.productId {
            if request.foodId != nil { problems["\(path).foodId"] = "Give either a productId or a foodId, not both." }
            if request.values.contains(where: { $0.value != nil }) {
                problems["\(path).calories"] = "Give either a productId (values come from its label) or your own values, not both."
            }
            // A product is measured in grams or servings of its label; a quantity or unit would be dropped unread.
            if request.quantity != nil { problems["\(path).quantity"] = "A product takes grams or servings, not a quantity." }
            if request.unit != nil { problems["\(path).unit"] = "A product takes grams or servings, not a unit." }
            guard let product = foods.loggable(productId, by: caller) else {
                problems["\(path).productId"] =
                    "No product with this id; look it up with /api/foods/barcode/{code} (one added a moment ago may take a second to arrive)."
                return nil
            }
            guard problems.count == before else { return nil }
            return productDraft(request, product: product, name: name, path: path, problems: &problems)
        }
        if request.servings != nil { problems["\(path).servings"] = "Servings are for products (productId); give grams or a quantity." }
        if let foodId = request.foodId {
            guard let food = foods.catalog.food(id: foodId) else {
                problems["\(path).foodId"] = "No food with this id; search /api/foods/search."
                return nil
            }
            if request.values.contains(where: { $0.value != nil }) {
                problems["\(path).calories"] = "Give either a foodId (values come from the table) or your own values, not both."
            }
            guard problems.count == before else { return nil }
            return tableDraft(request, food: food, name: name, path: path, problems: &problems)
        }
        if name == nil { problems["\(path).name"] = "Give a name (or a foodId)." }
        if request.grams == nil { problems["\(path).grams"] = "Give the item's weight in grams (or a foodId)." }
        if request.calories == nil { problems["\(path).calories"] = "Give the item's calories (or a foodId)." }
        let macroGrams = (request.protein ?? 0) + (request.carbs ?? 0) + (request.fat ?? 0)
        if let grams = request.grams, macroGrams > grams * 1.01 {
            problems["\(path).protein"] = "Protein, carbs and fat together cannot weigh more than the item."
        }
        if let grams = request.grams {
            for (field, value) in [("fiber", request.fiber), ("sugars", request.sugars), ("saturatedFat", request.saturatedFat)] {
                if let value, value > grams * 1.01 { problems["\(path).\(field)"] = "Cannot weigh more than the item." }
            }
        }
        if let sodium = request.sodium, sodium > maxSodiumMilligrams {
            problems["\(path).sodium"] = "At most \(Int(maxSodiumMilligrams)) mg per item."
        }
        guard problems.count == before, let name, let grams = request.grams, let calories = request.calories else { return nil }
        let nutrients = NutrientProfile(
            calories: calories, protein: request.protein ?? 0, carbs: request.carbs ?? 0, fat: request.fat ?? 0,
            fiber: request.fiber ?? 0, sugars: request.sugars ?? 0, saturatedFat: request.saturatedFat ?? 0, sodium: request.sodium ?? 0)
        return MealItemDraft(
            name: name, amount: request.quantity ?? grams, unit: request.quantity == nil ? "g" : (request.unit ?? "serving"),
            grams: grams, food: nil, nutrients: nutrients, confidence: 1, source: .manual)
    }

    /// A portion of a product: `grams`, or `servings` (default 1) of its label's serving size.
    private static func productDraft(
        _ request: ItemRequest, product: PackagedProduct, name: String?, path: String, problems: inout [String: String]
    ) -> MealItemDraft? {
        let name = name ?? product.name
        if let grams = request.grams {
            guard request.servings == nil else {
                problems["\(path).servings"] = "Give grams or servings, not both."
                return nil
            }
            return .fromProduct(product, name: name, amount: grams, unit: product.event.basis == "100ml" ? "ml" : "g", grams: grams)
        }
        guard let serving = product.servingGrams else {
            problems["\(path).grams"] = "This product's label gives no serving size: give grams."
            return nil
        }
        let servings = request.servings ?? 1
        guard serving * servings <= maxGrams else {
            problems["\(path).servings"] = "That portion weighs over \(Int(maxGrams)) g."
            return nil
        }
        return .fromProduct(product, name: name, amount: servings, unit: "serving", grams: serving * servings)
    }

    /// A portion of a table food: explicit grams win, else quantity (default 1) of the unit (default the usual one).
    private static func tableDraft(
        _ request: ItemRequest, food: FoodRecord, name: String?, path: String, problems: inout [String: String]
    ) -> MealItemDraft? {
        let quantity = request.quantity ?? 1
        if let grams = request.grams {
            return .fromTable(
                food, name: name ?? food.name, amount: request.quantity ?? grams, unit: request.quantity == nil ? "g" : (request.unit ?? "serving"),
                grams: grams, confidence: 1)
        }
        var unit: PortionUnit?
        if let unitName = request.unit?.lowercased().trimmingCharacters(in: .whitespaces), !unitName.isEmpty {
            let words = unitName.split(separator: " ").map { FoodNameTokenizer.singular(String($0)) }
            if let known = PortionUnit.named(words[0], next: words.dropFirst().first) {
                unit = known.unit
            } else if PortionResolver.measure(named: words[0], in: food) != nil {
                unit = .household(word: words[0], millilitres: nil)
            } else {
                let known = food.measures.map(\.name).joined(separator: ", ")
                problems["\(path).unit"] = "Unknown unit for this food; use g, ml, oz, cup, tbsp, tsp or one of: \(known)."
                return nil
            }
        }
        let portion = ParsedPortion(quantity: quantity, unit: unit, foodPhrase: name ?? food.name, quantityWritten: true)
        let resolution = PortionResolver.resolve(portion, food: food)
        guard resolution.grams <= maxGrams else {
            problems["\(path).quantity"] = "That portion weighs over \(Int(maxGrams)) g."
            return nil
        }
        return .fromTable(food, name: name ?? food.name, amount: quantity, unit: resolution.unit, grams: resolution.grams, confidence: 1)
    }
}

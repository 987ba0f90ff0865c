import FoodData
import Foundation
import ServiceDefaults

/// The body of `POST /api/foods/products` and `PUT /api/foods/products/{id}` as sent.
struct ProductDraftBody: Decodable, Sendable {
    struct Serving: Decodable, Sendable {
        var amount: Double?
        var unit: String?
    }

    struct Nutrients: Decodable, Sendable {
        var calories: Double?
        var protein: Double?
        var carbs: Double?
        var fat: Double?
        var fiber: Double?
        var sugars: Double?
        var saturatedFat: Double?
        /// Milligrams.
        var sodium: Double?
        /// Grams of salt, as European labels give it; sodium is salt × 400 mg.
        var salt: Double?
    }

    var barcode: String?
    var name: String?
    var brand: String?
    var servingSize: Serving?
    var per100g: Nutrients?
    var per100ml: Nutrients?
    var allergens: [String]?
    var vegan: Bool?
    var vegetarian: Bool?
    var novaGroup: Int?
    var nutriScore: String?
}

/// Checks a product body into its barcode and details, collecting every problem so one 422 names them all: the
/// barcode's check digit, lengths, and the nutrients as every label is checked (`LabelNutrients`: within what 100 g or
/// 100 ml can hold, sugars within carbs, saturated fat within fat, energy against the macros).
struct ProductDraftReader {
    static let maxNameLength = 200
    static let maxBrandLength = 100
    /// Most grams in one serving (a family pack).
    static let maxServing = 5000.0

    private(set) var problems: [String: String] = [:]

    /// The barcode and details, or 422 `validation_failed` naming every problem (`invalid_barcode` when the barcode
    /// is the only one).
    static func read(_ body: ProductDraftBody) throws -> (gtin: GTIN, details: ProductDetails) {
        var reader = ProductDraftReader()
        let gtin = reader.barcode(body.barcode)
        let details = reader.details(body)
        guard let gtin, let details, reader.problems.isEmpty else {
            if reader.problems.keys.sorted() == ["barcode"], let problem = reader.problems["barcode"] {
                throw APIError(.unprocessableContent, code: "invalid_barcode", message: problem, details: reader.problems)
            }
            throw APIError.invalid(reader.problems)
        }
        return (gtin, details)
    }

    private mutating func barcode(_ code: String?) -> GTIN? {
        guard let code else {
            problems["barcode"] = "Give the product's barcode (UPC-A, UPC-E, EAN-8, EAN-13 or GTIN-14)."
            return nil
        }
        switch GTIN.readings(of: code) {
        case .failure(let problem):
            problems["barcode"] = "This is not a barcode we can read: \(problem)."
            return nil
        case .success(let readings):
            // An 8-digit code that reads both as EAN-8 and as UPC-E is taken as EAN-8, the more common.
            return readings.first
        }
    }

    private mutating func details(_ body: ProductDraftBody) -> ProductDetails? {
        let name = text(body.name, field: "name", limit: Self.maxNameLength, required: true)
        let brand = text(body.brand, field: "brand", limit: Self.maxBrandLength, required: false)
        let basis: ProductDetails.Basis
        let given: ProductDraftBody.Nutrients
        switch (body.per100g, body.per100ml) {
        case (let nutrients?, nil):
            (basis, given) = (.per100g, nutrients)
        case (nil, let nutrients?):
            (basis, given) = (.per100ml, nutrients)
        case (nil, nil):
            problems["per100g"] = "Give the label's nutrients per 100 g (or per100ml for a drink)."
            return nil
        case (.some, .some):
            problems["per100ml"] = "Give per100g or per100ml, not both."
            return nil
        }
        let per100 = nutrients(
            given, field: basis == .per100g ? "per100g" : "per100ml",
            maxGrams: basis == .per100g ? LabelNutrients.maxGramsIn100g : LabelNutrients.maxGramsIn100ml)
        let serving = servingSize(body.servingSize, basis: basis)
        var allergens: [Allergen] = []
        for (index, id) in (body.allergens ?? []).enumerated() {
            guard let allergen = Allergen(rawValue: id) else {
                problems["allergens[\(index)]"] = "Use one of \(Allergen.allCases.map(\.rawValue).joined(separator: ", "))."
                continue
            }
            if !allergens.contains(allergen) { allergens.append(allergen) }
        }
        if let nova = body.novaGroup, !(1...4).contains(nova) { problems["novaGroup"] = "Use a NOVA group from 1 to 4." }
        let nutriScore = body.nutriScore?.lowercased()
        if let nutriScore, !["a", "b", "c", "d", "e"].contains(nutriScore) { problems["nutriScore"] = "Use a Nutri-Score grade from a to e." }
        if body.vegan == true && body.vegetarian == false { problems["vegetarian"] = "A vegan product is vegetarian too." }
        guard let name, let per100 else { return nil }
        return ProductDetails(
            name: name, brand: brand, basis: basis, per100: per100, servingSize: serving,
            allergens: allergens.sorted { $0.rawValue < $1.rawValue }, vegan: body.vegan,
            vegetarian: body.vegetarian ?? (body.vegan == true ? true : nil), novaGroup: body.novaGroup, nutriScore: nutriScore)
    }

    private mutating func text(_ value: String?, field: String, limit: Int, required: Bool) -> String? {
        let trimmed = value?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
        if trimmed.isEmpty {
            if required { problems[field] = "Give 1 to \(limit) characters." }
            return nil
        }
        guard trimmed.count <= limit else {
            problems[field] = "Use at most \(limit) characters."
            return nil
        }
        guard !trimmed.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            problems[field] = "Use printable characters only."
            return nil
        }
        return trimmed
    }

    private mutating func nutrients(_ given: ProductDraftBody.Nutrients, field: String, maxGrams: Double) -> ProductNutrients? {
        let label = LabelNutrients(
            calories: given.calories, protein: given.protein, carbs: given.carbs, fat: given.fat, fiber: given.fiber, sugars: given.sugars,
            saturatedFat: given.saturatedFat, sodium: given.sodium, salt: given.salt)
        let found = label.problems(maxGrams: maxGrams, requireCore: true)
        for (name, problem) in found { problems[name.isEmpty ? field : "\(field).\(name)"] = problem }
        guard found.isEmpty, let calories = label.calories, let protein = label.protein, let carbs = label.carbs, let fat = label.fat else {
            return nil
        }
        return ProductNutrients(
            calories: calories, protein: protein, carbs: carbs, fat: fat, fiber: label.fiber, sugars: label.sugars,
            saturatedFat: label.saturatedFat, sodium: label.sodiumOrFromSalt)
    }

    private mutating func servingSize(_ given: ProductDraftBody.Serving?, basis: ProductDetails.Basis) -> ProductDetails.ServingSize? {
        guard let given else { return nil }
        guard let amount = given.amount, amount.isFinite, amount > 0, amount <= Self.maxServing else {
            problems["servingSize.amount"] = "Use more than 0 and at most \(Int(Self.maxServing))."
            return nil
        }
        let unit = given.unit ?? basis.unit
        guard unit == basis.unit else {
            problems["servingSize.unit"] = "Use \(basis.unit), as the nutrients are per 100 \(basis.unit)."
            return nil
        }
        return ProductDetails.ServingSize(amount: amount, unit: unit)
    }
}

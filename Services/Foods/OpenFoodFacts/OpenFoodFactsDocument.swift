import FoodData
import Foundation

/// An Open Food Facts API v2 product answer, read leniently (numbers may come as strings, fields may be missing or
/// empty) into our product details. What OFF does not give stays unknown: kJ-only energy is converted to kcal, salt
/// to sodium, per-serving-only values to per 100 when the serving's size is known; nutrients it lacks are marked
/// missing, never invented, and values outside what food can hold are dropped as unknown.
struct OpenFoodFactsDocument {
    /// What an answer says.
    enum Reading: Equatable {
        case found(ProductDetails)
        /// OFF knows no such product (`status` 0), or keeps nothing under it we can show (no name at all).
        case notFound
    }

    /// The fields asked for (`fields=`), so OFF sends only what is read.
    static let fields = [
        "code", "product_name", "product_name_en", "generic_name", "brands", "quantity", "serving_size", "serving_quantity",
        "nutrition_data_per", "nutriments", "nova_group", "nutriscore_grade", "allergens_tags", "ingredients_analysis_tags",
        "categories_tags", "serving_quantity_unit",
    ]

    /// Reads an answer's body; throws `OpenFoodFactsDocumentError` when it is not OFF's JSON at all.
    static func read(_ body: Data) throws -> Reading {
        guard let root = (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] else { throw OpenFoodFactsDocumentError.notJSON }
        guard let status = number(root["status"]) else { throw OpenFoodFactsDocumentError.noStatus }
        guard status == 1, let product = root["product"] as? [String: Any] else { return .notFound }
        return details(of: product).map(Reading.found) ?? .notFound
    }

    /// Our details of one OFF product; nil when it has no name of any kind.
    static func details(of product: [String: Any]) -> ProductDetails? {
        let name = [product["product_name"], product["product_name_en"], product["generic_name"]].lazy.compactMap(text).first
        guard let name else { return nil }
        let brand = text(product["brands"])?.split(separator: ",").first.map { String($0.trimmingCharacters(in: .whitespaces)) }
        let basis = basis(of: product)
        let nutriments = product["nutriments"] as? [String: Any] ?? [:]
        let serving = servingSize(of: product, basis: basis)
        let perServingOnly = text(product["nutrition_data_per"]) == "serving" || !hasAny(nutriments, suffix: "_100g")
        var per100 = nutrients(nutriments, suffix: perServingOnly ? "_serving" : "_100g")
        if perServingOnly {
            // Per-serving values become per 100 only through the serving's size; without it they stay unknown.
            per100 = serving.map { per100.scaled(by: 100 / $0.amount) } ?? ProductNutrients()
        }
        let tags = strings(product["ingredients_analysis_tags"])
        return ProductDetails(
            name: String(name.prefix(200)), brand: brand.flatMap { $0.isEmpty ? nil : String($0.prefix(100)) }, basis: basis,
            per100: per100, servingSize: serving,
            allergens: Array(Set(strings(product["allergens_tags"]).compactMap(Allergen.init(openFoodFactsTag:)))).sorted {
                $0.rawValue < $1.rawValue
            },
            vegan: flag(tags, yes: "en:vegan", no: "en:non-vegan"), vegetarian: flag(tags, yes: "en:vegetarian", no: "en:non-vegetarian"),
            novaGroup: number(product["nova_group"]).flatMap { (1...4).contains($0) && $0.rounded() == $0 ? Int($0) : nil },
            nutriScore: text(product["nutriscore_grade"]).map { $0.lowercased() }.flatMap { ["a", "b", "c", "d", "e"].contains($0) ? $0 : nil })
    }

    /// The nutrients of `nutriments` with the given suffix (`_100g` or `_serving`), converted to our units.
    static func nutrients(_ nutriments: [String: Any], suffix: String) -> ProductNutrients {
        func grams(_ key: String, upTo limit: Double = 100) -> Double? {
            number(nutriments[key + suffix]).flatMap { (0...limit).contains($0) ? $0 : nil }
        }
        let kcal = number(nutriments["energy-kcal" + suffix])
        let kilojoules = number(nutriments["energy-kj" + suffix]) ?? number(nutriments["energy" + suffix])
        let calories = (kcal ?? kilojoules.map { $0 / LabelNutrients.kilojoulesPerKilocalorie }).flatMap {
            (0...1000).contains($0) ? ($0 * 10).rounded() / 10 : nil
        }
        // OFF keeps sodium and salt in grams; ours is sodium in milligrams.
        let sodium = grams("sodium", upTo: 40).map { $0 * 1000 } ?? grams("salt").map { $0 * LabelNutrients.sodiumMilligramsPerGramOfSalt }
        return ProductNutrients(
            calories: calories, protein: grams("proteins"), carbs: grams("carbohydrates"), fat: grams("fat"), fiber: grams("fiber"),
            sugars: grams("sugars"), saturatedFat: grams("saturated-fat"), sodium: sodium.map { ($0 * 10).rounded() / 10 })
    }

    /// Drinks are per 100 ml: a quantity or serving in ml, cl or l, or the beverages category.
    static func basis(of product: [String: Any]) -> ProductDetails.Basis {
        let volume = #"^\s*[0-9]+([.,][0-9]+)?\s*(ml|cl|dl|l)\b"#
        let quantities = [product["quantity"], product["serving_size"]].compactMap(text).map { $0.lowercased() }
        if quantities.contains(where: { $0.range(of: volume, options: .regularExpression) != nil }) { return .per100ml }
        return strings(product["categories_tags"]).contains("en:beverages") ? .per100ml : .per100g
    }

    /// The serving's size: `serving_quantity` (in the basis's unit), else the leading amount of `serving_size` when it is
    /// in grams or millilitres.
    static func servingSize(of product: [String: Any], basis: ProductDetails.Basis) -> ProductDetails.ServingSize? {
        let statedUnit = text(product["serving_quantity_unit"])?.lowercased()
        if let amount = number(product["serving_quantity"]), amount > 0, amount <= 5000, statedUnit == nil || statedUnit == basis.unit {
            return ProductDetails.ServingSize(amount: amount, unit: basis.unit)
        }
        guard let size = text(product["serving_size"])?.lowercased(),
            let match = size.range(of: #"[0-9]+([.,][0-9]+)?\s*(g|ml)\b"#, options: .regularExpression)
        else { return nil }
        let written = size[match]
        let unit = written.hasSuffix("ml") ? "ml" : "g"
        let digits = written.prefix { $0.isNumber || $0 == "." || $0 == "," }.replacingOccurrences(of: ",", with: ".")
        guard let amount = Double(digits), amount > 0, amount <= 5000 else { return nil }
        return ProductDetails.ServingSize(amount: amount, unit: unit)
    }

    // MARK: Lenient values

    /// A number given as a JSON number or a numeric string.
    static func number(_ value: Any?) -> Double? {
        switch value {
        case let number as NSNumber: number.doubleValue.isFinite ? number.doubleValue : nil
        case let text as String:
            Double(text.trimmingCharacters(in: .whitespaces).replacingOccurrences(of: ",", with: ".")).flatMap { $0.isFinite ? $0 : nil }
        default: nil
        }
    }

    /// A non-empty trimmed string.
    static func text(_ value: Any?) -> String? {
        guard let text = (value as? String)?.trimmingCharacters(in: .whitespacesAndNewlines), !text.isEmpty else { return nil }
        return text
    }

    static func strings(_ value: Any?) -> [String] { (value as? [Any])?.compactMap { $0 as? String } ?? [] }

    private static func hasAny(_ nutriments: [String: Any], suffix: String) -> Bool {
        nutriments.keys.contains { $0.hasSuffix(suffix) && number(nutriments[$0]) != nil }
    }

    private static func flag(_ tags: [String], yes: String, no: String) -> Bool? {
        if tags.contains(yes) { return true }
        if tags.contains(no) { return false }
        return nil
    }
}

/// An Open Food Facts answer that is not its JSON: a proxy's page, a cut-off body, garbage.
enum OpenFoodFactsDocumentError: Error, Equatable {
    case notJSON
    case noStatus
}

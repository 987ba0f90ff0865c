import FoodData
import Foundation
import Hummingbird

/// `POST /api/analyze` answer with `kind=label`: the label read into `product`, a draft in the very shape
/// `POST /api/foods/products` takes (the client shows it, lets the user fix it, and sends it), beside the values per
/// serving, the model's `confidence`, the nutrients the label did not show (`missingNutrients`), what the server
/// computed rather than copied (`conversions`), and `usageWarning` as photo answers carry it.
struct LabelDraftBody: ResponseEncodable {
    var reading: LabelReading
    /// The barcode the client sent beside the photo, if any.
    var barcode: GTIN?
    var usageWarning: VisionUsageWarning?

    private enum Key: String, CodingKey {
        case kind, product, perServing, confidence, missingNutrients, conversions, usageWarning
        case barcode, name, brand, servingSize, per100g, per100ml
        case amount, unit
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        try container.encode("label", forKey: .kind)
        var product = container.nestedContainer(keyedBy: Key.self, forKey: .product)
        try product.encodeIfPresent(barcode?.digits, forKey: .barcode)
        try product.encodeIfPresent(reading.name, forKey: .name)
        try product.encodeIfPresent(reading.brand, forKey: .brand)
        if let serving = reading.servingSize {
            var size = product.nestedContainer(keyedBy: Key.self, forKey: .servingSize)
            try size.encode(serving, forKey: .amount)
            try size.encode(reading.basis.rawValue, forKey: .unit)
        }
        try product.encode(Nutrients(reading.per100), forKey: reading.basis == .grams ? .per100g : .per100ml)
        try container.encode(reading.perServing.map(Nutrients.init), forKey: .perServing)
        try container.encode(reading.confidence, forKey: .confidence)
        try container.encode(reading.per100.missing, forKey: .missingNutrients)
        try container.encode(reading.conversions.map(\.rawValue), forKey: .conversions)
        try container.encodeIfPresent(usageWarning, forKey: .usageWarning)
    }

    /// A label's values under the names products use; a value the label does not show is `null`.
    private struct Nutrients: Encodable {
        var values: LabelNutrients

        init(_ values: LabelNutrients) { self.values = values }

        private enum Key: String, CodingKey {
            case calories, protein, carbs, fat, fiber, sugars, saturatedFat, sodium
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Key.self)
            try container.encode(values.calories, forKey: .calories)
            try container.encode(values.protein, forKey: .protein)
            try container.encode(values.carbs, forKey: .carbs)
            try container.encode(values.fat, forKey: .fat)
            try container.encode(values.fiber, forKey: .fiber)
            try container.encode(values.sugars, forKey: .sugars)
            try container.encode(values.saturatedFat, forKey: .saturatedFat)
            try container.encode(values.sodiumOrFromSalt, forKey: .sodium)
        }
    }
}

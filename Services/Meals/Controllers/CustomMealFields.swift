import FoodData
import Foundation
import ServiceDefaults

/// Checks the fields of a custom meal as `POST` and `PUT /api/custom-meals` and the import take them: a name, an
/// optional meal type and tags, and items the food table resolves. 422 naming every invalid field.
enum CustomMealFields {
    static func check(
        _ body: CustomMealRequest, foods: ItemFoods, caller: UUID, now: Date
    ) throws -> (name: String, mealType: MealType?, tags: [String]?) {
        var fields = MealFieldReader(now: now)
        let name = fields.text(body.name, field: "name", limit: 120)
        if name == nil && fields.problems["name"] == nil { fields.merge(APIError.invalid(["name": "Give the meal a name."])) }
        let mealType = fields.mealType(body.mealType)
        let tags = fields.tags(body.tags)
        do {
            _ = try ItemRequestResolver.resolve(body.items, foods: foods, caller: caller)
        } catch let error as APIError where error.status == .unprocessableContent {
            fields.merge(error)
        }
        try fields.check()
        return (name ?? "", mealType, tags)
    }
}

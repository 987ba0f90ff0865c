import Foundation

/// What the vision model is asked for a meal photo: the instructions, the strict answer schema, and the request.
enum MealItemsPrompt {
    /// The user's note is cut to this many characters; it only steers the model.
    static let maxHintLength = 500

    static let system = """
        You estimate the nutrition of a meal from a photo. List every distinct food and drink that is visible, \
        each as its own item: separate foods are separate items (a burger and its fries are two items, a coffee \
        next to a croissant is two items); a mixed dish that is eaten as one (a salad, a stew, a sandwich) is one item.
        For each item give:
        - name: short and specific, such as "scrambled eggs", "white rice", "latte".
        - amount and unit: the portion in household units, such as 2 "slice", 1 "cup", 1 "medium", 3 "tbsp".
        - grams: the same portion's weight in grams (millilitres for drinks), judged from what is visible: plate \
        and cutlery size, hands, packaging. Never fall back to a default of 100 g.
        - confidence: 0 to 1, how sure you are of both the food and its portion.
        - calories_kcal, protein_g, carbs_g (total, fibre included), fat_g, fiber_g, sugars_g, saturated_fat_g, \
        alcohol_g (0 unless alcoholic) in grams and sodium_mg in milligrams: all for the whole portion shown, not per 100 g.
        Use the user's note when it names foods, amounts or how something was cooked. If there is no food or drink \
        in the photo, return an empty list of items. Answer with JSON only.
        """

    /// `{"items": [...]}`, every field required.
    static let schema = JSONSchema.object([
        (
            "items",
            .array(
                .object([
                    ("name", .string("Short, specific name of the food or drink")),
                    ("amount", .number("Portion size in the household unit")),
                    ("unit", .string("Household unit of the portion, such as slice, cup, medium, tbsp")),
                    ("grams", .number("The portion's weight in grams (millilitres for drinks)")),
                    ("confidence", .number("0 to 1")),
                    ("calories_kcal", .number("Energy of the whole portion, kcal")),
                    ("protein_g", .number("Protein in the portion, g")),
                    ("carbs_g", .number("Total carbohydrate in the portion, fibre included, g")),
                    ("fat_g", .number("Fat in the portion, g")),
                    ("fiber_g", .number("Fibre in the portion, g")),
                    ("sugars_g", .number("Sugars in the portion, g")),
                    ("saturated_fat_g", .number("Saturated fat in the portion, g")),
                    ("sodium_mg", .number("Sodium in the portion, mg")),
                    ("alcohol_g", .number("Alcohol in the portion, g; 0 for food and soft drinks")),
                ]))
        )
    ])

    /// The chat-completions request for `photo`, with the user's `hint` (if any) as the text part.
    static func request(photo: PhotoUpload, hint: String?, model: String) -> ChatCompletionRequest {
        let note = hint?.trimmingCharacters(in: .whitespacesAndNewlines).prefix(maxHintLength) ?? ""
        let text = note.isEmpty ? "List the foods and drinks in this meal photo." : "The user's note about this meal: \(note)"
        return .aboutPhoto(photo, text: text, system: system, schemaName: "meal_items", schema: schema, model: model)
    }
}

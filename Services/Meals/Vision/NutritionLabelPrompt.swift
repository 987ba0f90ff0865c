import Foundation

/// What the vision model is asked for a photo of a nutrition-facts panel (`POST /api/analyze` with `kind=label`): to
/// copy the label's numbers as printed, leaving out (null) what it cannot read rather than guessing, so the server can
/// convert kJ, salt and per-serving columns itself and say where it did.
enum NutritionLabelPrompt {
    static let system = """
        You read the nutrition-facts panel of a packaged food or drink from a photo and copy its numbers exactly as \
        printed. Never estimate, never compute a value that is not printed, never fill in a typical value: a number you \
        cannot read with certainty is null.
        - is_nutrition_label: false when the photo shows no nutrition table (a meal, a menu, the front of a pack, a \
        blurred or cut-off table with no legible number); then give null numbers and empty strings.
        - product_name and brand: as printed on the package if visible, otherwise "".
        - basis: "g" when the table's reference column is per 100 g, "ml" when it is per 100 ml; for a label with only \
        a per-serving column, the unit of the serving's weight or volume.
        - serving_size and serving_unit: the serving's weight or volume in g or ml as printed (for "1 cup (228g)" give \
        228 and "g"); null and "" when no serving size is printed.
        - per_100: the column per 100 g or 100 ml; per_serving: the column per serving. A column the label does not \
        have has every value null.
        - In each column: energy_kcal and energy_kj as printed (either may be null), protein_g, carbs_g (total \
        carbohydrate), sugars_g, fat_g, saturated_fat_g, fiber_g, sodium_mg (sodium in milligrams) and salt_g (salt in \
        grams), each as printed, or null.
        - confidence: 0 to 1, how sure you are that every number you gave is the one printed.
        Answer with JSON only.
        """

    /// One column of the label, every value nullable.
    static let column = JSONSchema.object([
        ("energy_kcal", .nullableNumber("Energy in kcal as printed")),
        ("energy_kj", .nullableNumber("Energy in kJ as printed")),
        ("protein_g", .nullableNumber("Protein, g")),
        ("carbs_g", .nullableNumber("Total carbohydrate, g")),
        ("sugars_g", .nullableNumber("Sugars, g")),
        ("fat_g", .nullableNumber("Fat, g")),
        ("saturated_fat_g", .nullableNumber("Saturated fat, g")),
        ("fiber_g", .nullableNumber("Fibre, g")),
        ("sodium_mg", .nullableNumber("Sodium, mg")),
        ("salt_g", .nullableNumber("Salt, g")),
    ])

    /// Every field required, numbers nullable.
    static let schema = JSONSchema.object([
        ("is_nutrition_label", .boolean("Whether the photo shows a legible nutrition table")),
        ("product_name", .string("The product's name as printed, or an empty string")),
        ("brand", .string("The brand as printed, or an empty string")),
        ("basis", .string("g when the reference column is per 100 g, ml when per 100 ml")),
        ("serving_size", .nullableNumber("The serving's weight or volume as printed")),
        ("serving_unit", .string("g or ml, or an empty string")),
        ("per_100", column),
        ("per_serving", column),
        ("confidence", .number("0 to 1")),
    ])

    /// The chat-completions request for `photo`, with the user's `hint` (if any) as the text part.
    static func request(photo: PhotoUpload, hint: String?, model: String) -> ChatCompletionRequest {
        let note = hint?.trimmingCharacters(in: .whitespacesAndNewlines).prefix(MealItemsPrompt.maxHintLength) ?? ""
        let text =
            note.isEmpty
            ? "Copy the numbers of this nutrition label." : "Copy the numbers of this nutrition label. The user's note about it: \(note)"
        return .aboutPhoto(photo, text: text, system: system, schemaName: "nutrition_label", schema: schema, model: model)
    }
}

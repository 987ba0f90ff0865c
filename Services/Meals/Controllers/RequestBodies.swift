/// `POST /api/meals`: a manual entry; `consumed` defaults to true (a typed entry is food that was eaten).
struct MealEntryRequest: Decodable {
    var items: [ItemRequest]
    var title: String?
    var mealType: String?
    var captureKind: String?
    var eatenAt: String?
    var notes: String?
    var consumed: Bool?
    /// Up to 10 tags (`MealTags`).
    var tags: [String]?
    /// When the client made the entry (ISO 8601), for last-write-wins.
    var modifiedAt: String?
}

/// `PUT /api/meals/:id`: fields given are changed; `items` replaces every item. When no meal has the id yet, it is
/// created from these fields (`items` required) with `captureKind` and `consumed` as in `POST /api/meals`.
struct MealUpdateRequest: Decodable {
    var items: [ItemRequest]?
    var title: String?
    var mealType: String?
    var eatenAt: String?
    var notes: String?
    var captureKind: String?
    var consumed: Bool?
    /// Replaces every tag when given (`[]` removes them).
    var tags: [String]?
    /// When the client made the change (ISO 8601), for last-write-wins.
    var modifiedAt: String?
}

/// `POST /api/meals/:id/consume` and `POST /api/custom-meals/:id/log`.
struct ConsumeRequest: Decodable {
    var notes: String?
    var eatenAt: String?
    var mealType: String?
    /// When the client made the change (ISO 8601), for last-write-wins.
    var modifiedAt: String?
}

/// `POST /api/analyze` as JSON: a base64 `image` or a `text` description, not both.
struct AnalyzeJSONRequest: Decodable {
    /// `meal` (the default) or `label`: a nutrition-facts panel read into a draft product.
    var kind: String?
    /// With `kind=label`: the product's barcode, carried into the draft.
    var barcode: String?
    var image: String?
    var text: String?
    /// Words that help the vision model (what the photo shows); ignored for text.
    var hint: String?
    var mealType: String?
    var captureKind: String?
    var eatenAt: String?
    /// Up to 10 tags (`MealTags`).
    var tags: [String]?
}

/// `POST /api/custom-meals` and `PUT /api/custom-meals/:id`.
struct CustomMealRequest: Decodable {
    var name: String
    var mealType: String?
    var items: [ItemRequest]
    /// Up to 10 tags (`MealTags`); on a replace, absent keeps them.
    var tags: [String]?
    /// When the client made the change (ISO 8601), for last-write-wins.
    var modifiedAt: String?
}

/// `PUT /api/users/vision-key`: the user's own OpenAI-compatible key, with the API root and model to use it with
/// (OpenAI's `https://api.openai.com/v1` and `gpt-4o-mini` when absent).
struct VisionKeyRequest: Decodable {
    var apiKey: String?
    var baseUrl: String?
    var model: String?
}

/// What `POST /api/analyze` received: a photo or a text, and the optional meal fields, not yet validated.
struct AnalysisInput: Sendable {
    /// `meal` (the default) or `label`.
    var kind: String?
    /// With `kind=label`: the barcode the client scanned, carried into the draft product.
    var barcode: String?
    var photo: PhotoUpload?
    var text: String?
    var hint: String?
    var mealType: String?
    var captureKind: String?
    var eatenAt: String?
    /// Up to 10 tags (`MealTags`): a JSON list, or in a form one comma-separated field.
    var tags: [String]?
}

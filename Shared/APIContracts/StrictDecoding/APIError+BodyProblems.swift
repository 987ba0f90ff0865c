extension APIError {
    /// 422 `unknown_field` for fields of a request (a form's parts, say) that are none of `known`, each with the known
    /// field it most resembles when one is close.
    public static func unknownFields(_ names: [String], known: Set<String>) -> APIError {
        APIError(
            problems: [:],
            unknown: Dictionary(
                names.map { (FieldPath.body.appending($0), FieldSuggestion.closest(to: $0, among: known)) }, uniquingKeysWith: { first, _ in first }))
    }

    /// The 422 of a body with `problems` (field to what is wrong) and `unknown` keys (each with its closest known key).
    init(problems: [FieldPath: String], unknown: [FieldPath: String?]) {
        var details: [String: String] = [:]
        for (path, problem) in problems { details[path.description] = problem }
        for (path, suggestion) in unknown {
            details[path.description] = suggestion.map { "is not a known field; did you mean \"\($0)\"?" } ?? "is not a known field"
        }
        if problems.isEmpty {
            self.init(
                .unprocessableContent, code: "unknown_field",
                message: "The request has fields this operation does not know; nothing was changed.", details: details)
        } else {
            self.init(.unprocessableContent, code: "validation_failed", message: "Some values are invalid.", details: details)
        }
    }
}

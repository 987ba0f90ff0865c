/// What a `DecodingError` says about a request body, as the `details` of a 400 `malformed_body`: the field path and
/// what is wrong with it, never the decoder's own text.
public enum DecodingProblems {
    /// The field path and what is wrong with it, in words a client developer understands.
    public static func details(of error: DecodingError) -> [String: String] {
        func path(_ codingPath: [any CodingKey]) -> String {
            codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
        }
        switch error {
        case .keyNotFound(let key, let context):
            return [path(context.codingPath + [key]): "is required"]
        case .typeMismatch(let type, let context):
            return [path(context.codingPath).isEmpty ? "body" : path(context.codingPath): "must be \(Self.name(of: type))"]
        case .valueNotFound(let type, let context):
            return [path(context.codingPath): "must be \(Self.name(of: type)), not null"]
        case .dataCorrupted(let context):
            return context.codingPath.isEmpty ? ["body": "is not valid JSON"] : [path(context.codingPath): "has an invalid value"]
        @unknown default:
            return ["body": "could not be read"]
        }
    }

    private static func name(of type: Any.Type) -> String {
        switch type {
        case is String.Type: "a string"
        case is Int.Type, is Int32.Type, is Int64.Type: "an integer"
        case is Double.Type, is Float.Type: "a number"
        case is Bool.Type: "true or false"
        default: String(describing: type).hasPrefix("Array") ? "an array" : "an object"
        }
    }
}

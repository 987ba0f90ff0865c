/// An answer the session could not turn into what was asked: the operation, the HTTP status of the answer, and a code
/// when the session itself refused (`unauthenticated`: no refresh token held).
public struct NutritionAIError: Error, CustomStringConvertible, Sendable {
    public var operation: String
    public var status: Int
    public var code: String?

    public var description: String {
        "\(operation) answered \(status)" + (code.map { " \($0)" } ?? "")
    }
}

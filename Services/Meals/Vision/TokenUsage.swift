/// The tokens a provider reports having used for one answer (`usage` of a chat completion), or several answers added up.
struct TokenUsage: Sendable, Equatable {
    var promptTokens: Int
    var completionTokens: Int

    static let zero = TokenUsage(promptTokens: 0, completionTokens: 0)

    var totalTokens: Int { promptTokens + completionTokens }

    /// Both counts added.
    static func + (left: TokenUsage, right: TokenUsage) -> TokenUsage {
        TokenUsage(promptTokens: left.promptTokens + right.promptTokens, completionTokens: left.completionTokens + right.completionTokens)
    }
}

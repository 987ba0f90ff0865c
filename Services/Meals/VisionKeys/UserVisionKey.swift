import Foundation

/// A user's own OpenAI-compatible provider: the API key (only ever in memory, never answered or logged), the API root,
/// the model, and the id its usage is counted under (new each time a key is set; nil before it is stored).
struct UserVisionKey: Sendable, Equatable {
    /// Where a key without a base URL is sent.
    static let defaultBaseURL = URL(string: "https://api.openai.com/v1")!
    /// The model used when the user names none.
    static let defaultModel = "gpt-4o-mini"

    var apiKey: String
    var baseURL: URL
    var model: String
    var usageKey: UUID? = nil
}

import Foundation

/// The part of a chat-completions answer the client reads: `choices[0].message.content`, or the refusal instead.
struct ChatCompletionAnswer: Decodable, Sendable {
    /// One of the model's answers; only the first is read.
    struct Choice: Decodable, Sendable {
        var message: Message
    }

    /// The assistant's message: its text, or why it would not answer.
    struct Message: Decodable, Sendable {
        var content: String?
        var refusal: String?
    }

    /// `usage` of an answer: the tokens the provider counts (and bills) for it.
    struct Usage: Decodable, Sendable {
        var promptTokens: Int?
        var completionTokens: Int?

        enum CodingKeys: String, CodingKey {
            case promptTokens = "prompt_tokens"
            case completionTokens = "completion_tokens"
        }
    }

    /// Only the `usage` of an answer, read whatever else the answer holds.
    private struct UsageOnly: Decodable {
        var usage: Usage?
    }

    var choices: [Choice]

    /// The tokens `body` reports in `usage`; nil when it reports none (some local servers) or is not JSON.
    static func usage(of body: Data) -> TokenUsage? {
        guard let usage = (try? JSONDecoder().decode(UsageOnly.self, from: body))?.usage,
            usage.promptTokens != nil || usage.completionTokens != nil
        else { return nil }
        return TokenUsage(promptTokens: max(0, usage.promptTokens ?? 0), completionTokens: max(0, usage.completionTokens ?? 0))
    }

    /// The JSON text the model wrote in `body`, without the Markdown fences or prose some local models add around it.
    /// Throws `VisionError.malformedAnswer` when there is no such text, and `.noFoodRecognised` when the model declined
    /// to describe the photo (a refusal is a proper answer about the photo, not a provider failing).
    static func jsonContent(of body: Data) throws -> String {
        let answer: ChatCompletionAnswer
        do {
            answer = try JSONDecoder().decode(ChatCompletionAnswer.self, from: body)
        } catch {
            throw VisionError.malformedAnswer("the answer is not a chat completion")
        }
        guard let message = answer.choices.first?.message else { throw VisionError.malformedAnswer("the answer has no choices") }
        if let refusal = message.refusal, !refusal.isEmpty { throw VisionError.noFoodRecognised("the model refused: \(refusal.prefix(200))") }
        guard let content = message.content, let start = content.firstIndex(of: "{"), let end = content.lastIndex(of: "}") else {
            throw VisionError.malformedAnswer("the model's message holds no JSON object")
        }
        // Slicing from the first `{` to the last `}` drops ```json fences and any sentence before or after them.
        return String(content[start...end])
    }
}

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

    var choices: [Choice]

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

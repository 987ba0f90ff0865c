import Foundation

/// The body of a `POST /chat/completions` with one system prompt, one user message of text and an image, and a
/// strict JSON-schema `response_format`: the subset every OpenAI-compatible server (OpenAI, Gemini, Ollama, vLLM) reads.
struct ChatCompletionRequest: Encodable, Sendable {
    /// One chat message; the user's content is a list of parts so it can carry the image.
    struct Message: Encodable, Sendable {
        var role: String
        var content: Content
    }

    /// A message's content: plain text, or text and image parts.
    enum Content: Encodable, Sendable {
        case text(String)
        case parts([Part])

        /// Encodes as a bare string or as the array of parts.
        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            switch self {
            case .text(let text): try container.encode(text)
            case .parts(let parts): try container.encode(parts)
            }
        }
    }

    /// A text part or an `image_url` part; the image travels inline as a `data:` URL.
    struct Part: Encodable, Sendable {
        /// `{"url": "data:..."}`.
        struct ImageURL: Encodable, Sendable {
            var url: String
        }

        var type: String
        var text: String?
        var imageURL: ImageURL?

        enum CodingKeys: String, CodingKey {
            case type, text
            case imageURL = "image_url"
        }

        /// A text part.
        static func text(_ text: String) -> Part { Part(type: "text", text: text) }

        /// An image part holding `bytes` as `data:<mediaType>;base64,...`.
        static func image(_ bytes: [UInt8], mediaType: String) -> Part {
            Part(type: "image_url", imageURL: ImageURL(url: "data:\(mediaType);base64,\(Data(bytes).base64EncodedString())"))
        }
    }

    /// `{"type": "json_schema", "json_schema": {"name", "strict": true, "schema"}}`.
    struct ResponseFormat: Encodable, Sendable {
        /// The schema with the name and strictness the providers require beside it.
        struct NamedSchema: Encodable, Sendable {
            var name: String
            var strict = true
            var schema: JSONSchema
        }

        var type = "json_schema"
        var jsonSchema: NamedSchema

        enum CodingKeys: String, CodingKey {
            case type
            case jsonSchema = "json_schema"
        }
    }

    var model: String
    /// 0: the same photo should give the same items.
    var temperature: Double = 0
    var messages: [Message]
    var responseFormat: ResponseFormat

    enum CodingKeys: String, CodingKey {
        case model, temperature, messages
        case responseFormat = "response_format"
    }

    /// A question about `photo`: the `system` instructions, the user's `text` beside the image, and the answer held to
    /// `schema` under `schemaName`.
    static func aboutPhoto(
        _ photo: PhotoUpload, text: String, system: String, schemaName: String, schema: JSONSchema, model: String
    ) -> ChatCompletionRequest {
        ChatCompletionRequest(
            model: model,
            messages: [
                .init(role: "system", content: .text(system)),
                .init(role: "user", content: .parts([.text(text), .image(photo.bytes, mediaType: photo.format.mediaType)])),
            ],
            responseFormat: .init(jsonSchema: .init(name: schemaName, schema: schema)))
    }
}

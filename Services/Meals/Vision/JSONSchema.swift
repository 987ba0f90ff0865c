/// The part of JSON Schema that strict structured outputs accept everywhere (OpenAI, Gemini, Ollama, vLLM):
/// objects whose properties are all required and closed to others, arrays, strings, booleans and numbers, and numbers
/// that may be `null` (the way strict mode spells an optional value).
indirect enum JSONSchema: Encodable, Sendable {
    case object([(name: String, schema: JSONSchema)])
    case array(JSONSchema)
    case string(String)
    case number(String)
    case boolean(String)
    /// A number or `null`, for a value that may be missing from what the model sees.
    case nullableNumber(String)

    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(_ name: String) { stringValue = name }
        init?(stringValue: String) { self.init(stringValue) }
        init?(intValue: Int) { nil }
    }

    /// Encodes as JSON Schema; an object lists every property as required and sets `additionalProperties: false`.
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        switch self {
        case .object(let properties):
            try container.encode("object", forKey: Key("type"))
            var nested = container.nestedContainer(keyedBy: Key.self, forKey: Key("properties"))
            for property in properties { try nested.encode(property.schema, forKey: Key(property.name)) }
            try container.encode(properties.map(\.name), forKey: Key("required"))
            try container.encode(false, forKey: Key("additionalProperties"))
        case .array(let items):
            try container.encode("array", forKey: Key("type"))
            try container.encode(items, forKey: Key("items"))
        case .string(let description):
            try container.encode("string", forKey: Key("type"))
            try container.encode(description, forKey: Key("description"))
        case .number(let description):
            try container.encode("number", forKey: Key("type"))
            try container.encode(description, forKey: Key("description"))
        case .boolean(let description):
            try container.encode("boolean", forKey: Key("type"))
            try container.encode(description, forKey: Key("description"))
        case .nullableNumber(let description):
            try container.encode(["number", "null"], forKey: Key("type"))
            try container.encode(description, forKey: Key("description"))
        }
    }
}

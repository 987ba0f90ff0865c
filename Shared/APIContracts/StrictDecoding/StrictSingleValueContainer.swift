/// The single-value container of `StrictTreeDecoder`: an absent value reads as null (an optional that is not there).
struct StrictSingleValueContainer: SingleValueDecodingContainer {
    let decoder: StrictTreeDecoder

    var codingPath: [any CodingKey] { decoder.codingPath }

    func decodeNil() -> Bool {
        decoder.value == nil || decoder.value == .null
    }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try decoder.decodeValue(type)
    }
}

/// The unkeyed container of `StrictTreeDecoder`: each element decoded at its index; reading past the end is recorded
/// once as too few elements.
struct StrictUnkeyedContainer: UnkeyedDecodingContainer {
    let decoder: StrictTreeDecoder
    let elements: [JSONValue]
    private(set) var currentIndex = 0

    init(decoder: StrictTreeDecoder, elements: [JSONValue]) {
        self.decoder = decoder
        self.elements = elements
    }

    var codingPath: [any CodingKey] { decoder.codingPath }
    var count: Int? { elements.count }
    var isAtEnd: Bool { currentIndex >= elements.count }

    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd else { return true }
        if elements[currentIndex] == .null {
            currentIndex += 1
            return true
        }
        return false
    }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try next().decodeValue(type)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        try next().container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try next().unkeyedContainer()
    }

    mutating func superDecoder() throws -> any Decoder {
        next()
    }

    /// The next element's decoder; past the end, a muted one (a type reading more elements than there are).
    private mutating func next() -> StrictTreeDecoder {
        guard !isAtEnd else {
            if !decoder.muted { decoder.ledger.record("has too few elements", at: decoder.path) }
            return decoder.silenced
        }
        defer { currentIndex += 1 }
        return decoder.element(elements[currentIndex], index: currentIndex)
    }
}

/// The keyed container of `StrictTreeDecoder`: notes every key the type asks for, so that the keys it never asks for
/// are reported as unknown; a missing required key is recorded and a placeholder stands in.
struct StrictKeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let decoder: StrictTreeDecoder
    let fields: [String: JSONValue]

    var codingPath: [any CodingKey] { decoder.codingPath }

    /// Reading every key means reading the object as data (a dictionary): all its keys are known.
    var allKeys: [Key] {
        if !decoder.muted { decoder.ledger.noteOpen(at: decoder.path) }
        return fields.keys.compactMap(Key.init(stringValue:))
    }

    func contains(_ key: Key) -> Bool {
        asked(key)
        return fields[key.stringValue] != nil
    }

    func decodeNil(forKey key: Key) throws -> Bool {
        asked(key)
        guard let value = fields[key.stringValue] else {
            member(key).record(expected: "a value")
            return true
        }
        return value == .null
    }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        asked(key)
        return try member(key).decodeValue(type)
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
        -> KeyedDecodingContainer<NestedKey>
    {
        asked(key)
        return try member(key).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        asked(key)
        return try member(key).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder {
        decoder
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        asked(key)
        return member(key)
    }

    private func asked(_ key: Key) {
        if !decoder.muted { decoder.ledger.noteAsked(key.stringValue, at: decoder.path) }
    }

    /// The decoder of the member at `key`; absent, its decoding records it as required (once: the fields of a missing
    /// object are not problems of their own).
    private func member(_ key: Key) -> StrictTreeDecoder {
        decoder.member(fields[key.stringValue], key: key)
    }
}

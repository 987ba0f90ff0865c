import Foundation

/// An `Encoder` that passes everything to the encoder it wraps, but writes every `UUID` as its lower-case text.
struct LowercasingEncoder: Encoder {
    let base: Encoder

    var codingPath: [CodingKey] { base.codingPath }
    var userInfo: [CodingUserInfoKey: Any] { base.userInfo }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        KeyedEncodingContainer(LowercasingKeyedContainer(base: base.container(keyedBy: type)))
    }

    func unkeyedContainer() -> UnkeyedEncodingContainer {
        LowercasingUnkeyedContainer(base: base.unkeyedContainer())
    }

    func singleValueContainer() -> SingleValueEncodingContainer {
        LowercasingSingleValueContainer(base: base.singleValueContainer())
    }
}

/// The keyed container of ``LowercasingEncoder``.
struct LowercasingKeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    var base: KeyedEncodingContainer<Key>

    var codingPath: [CodingKey] { base.codingPath }

    mutating func encodeNil(forKey key: Key) throws { try base.encodeNil(forKey: key) }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        try base.encode(LowercaseUUIDs<T>.prepared(value), forKey: key)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        KeyedEncodingContainer(LowercasingKeyedContainer<NestedKey>(base: base.nestedContainer(keyedBy: keyType, forKey: key)))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> UnkeyedEncodingContainer {
        LowercasingUnkeyedContainer(base: base.nestedUnkeyedContainer(forKey: key))
    }

    mutating func superEncoder() -> Encoder { LowercasingEncoder(base: base.superEncoder()) }

    mutating func superEncoder(forKey key: Key) -> Encoder { LowercasingEncoder(base: base.superEncoder(forKey: key)) }
}

/// The unkeyed container of ``LowercasingEncoder``.
struct LowercasingUnkeyedContainer: UnkeyedEncodingContainer {
    var base: UnkeyedEncodingContainer

    var codingPath: [CodingKey] { base.codingPath }
    var count: Int { base.count }

    mutating func encodeNil() throws { try base.encodeNil() }

    mutating func encode<T: Encodable>(_ value: T) throws {
        try base.encode(LowercaseUUIDs<T>.prepared(value))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        KeyedEncodingContainer(LowercasingKeyedContainer<NestedKey>(base: base.nestedContainer(keyedBy: keyType)))
    }

    mutating func nestedUnkeyedContainer() -> UnkeyedEncodingContainer {
        LowercasingUnkeyedContainer(base: base.nestedUnkeyedContainer())
    }

    mutating func superEncoder() -> Encoder { LowercasingEncoder(base: base.superEncoder()) }
}

/// The single-value container of ``LowercasingEncoder``.
struct LowercasingSingleValueContainer: SingleValueEncodingContainer {
    var base: SingleValueEncodingContainer

    var codingPath: [CodingKey] { base.codingPath }

    mutating func encodeNil() throws { try base.encodeNil() }

    mutating func encode<T: Encodable>(_ value: T) throws {
        try base.encode(LowercaseUUIDs<T>.prepared(value))
    }
}

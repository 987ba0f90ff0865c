import Foundation

/// A `Decoder` over one JSON value of a request body that records what is wrong instead of stopping at it: a value of
/// the wrong type, null or missing is recorded and a placeholder stands in, so decoding goes on and every problem is
/// found. Muted, it decodes placeholders for an absent value without recording anything (the fields of a missing
/// object are not problems of their own).
struct StrictTreeDecoder: Decoder {
    /// nil: absent (muted placeholders only).
    let value: JSONValue?
    let codingPath: [any CodingKey]
    let path: FieldPath
    let ledger: DecodingLedger
    let muted: Bool

    var userInfo: [CodingUserInfoKey: Any] { [:] }

    init(value: JSONValue?, codingPath: [any CodingKey], ledger: DecodingLedger, muted: Bool) {
        self.init(value: value, codingPath: codingPath, path: FieldPath(codingPath), ledger: ledger, muted: muted)
    }

    init(value: JSONValue?, codingPath: [any CodingKey], path: FieldPath, ledger: DecodingLedger, muted: Bool) {
        self.value = value
        self.codingPath = codingPath
        self.path = path
        self.ledger = ledger
        self.muted = muted
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        if case .object(let fields) = value {
            if !muted { ledger.noteObject(at: path, keys: Array(fields.keys)) }
            return KeyedDecodingContainer(StrictKeyedContainer<Key>(decoder: self, fields: fields))
        }
        record(expected: "an object")
        return KeyedDecodingContainer(StrictKeyedContainer<Key>(decoder: silenced, fields: [:]))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        if case .array(let elements) = value { return StrictUnkeyedContainer(decoder: self, elements: elements) }
        record(expected: "an array")
        return StrictUnkeyedContainer(decoder: silenced, elements: [])
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        StrictSingleValueContainer(decoder: self)
    }

    /// This decoder, recording nothing more: what stands in for a value that was not what the type needed.
    var silenced: StrictTreeDecoder {
        StrictTreeDecoder(value: nil, codingPath: codingPath, path: path, ledger: ledger, muted: true)
    }

    /// The decoder of array element `child` at `index`.
    func element(_ child: JSONValue, index: Int) -> StrictTreeDecoder {
        StrictTreeDecoder(
            value: child, codingPath: codingPath + [PathKey(.index(index))], path: path.appending(index: index), ledger: ledger, muted: muted)
    }

    /// The decoder of the object member `child` at `key` (a dictionary key that reads as a number stays a key).
    func member(_ child: JSONValue?, key: any CodingKey) -> StrictTreeDecoder {
        StrictTreeDecoder(value: child, codingPath: codingPath + [key], path: path.appending(key.stringValue), ledger: ledger, muted: muted)
    }

    /// Records that the value is not `expected` (absent, null, or another type), unless muted.
    func record(expected: String) {
        guard !muted else { return }
        switch value {
        case nil: ledger.record("is required", at: path)
        case .null?: ledger.record("must be \(expected), not null", at: path)
        default: ledger.record("must be \(expected)", at: path)
        }
    }

    /// `T` from this decoder's value: the JSON leaves directly, anything else by its own `init(from:)`. A type's own
    /// refusal (a `DecodingError`) is recorded and ends the decoding.
    func decodeValue<T: Decodable>(_ type: T.Type) throws -> T {
        if let leaf = decodeLeaf(type) { return leaf }
        do {
            return try T(from: self)
        } catch let error as DecodingError {
            if !muted {
                let context: DecodingError.Context? =
                    switch error {
                    case .dataCorrupted(let context), .typeMismatch(_, let context), .valueNotFound(_, let context): context
                    case .keyNotFound(_, let context): context
                    @unknown default: nil
                    }
                ledger.record("has an invalid value", at: context.map { FieldPath($0.codingPath) } ?? path)
            }
            throw DecodingAborted()
        }
    }

    /// The leaf types JSON has (and UUIDs and calendar days, which are strings with a form, and any JSON as data), or
    /// nil for another type.
    private func decodeLeaf<T>(_ type: T.Type) -> T? {
        switch type {
        case is String.Type: return leaf("a string", placeholder: "") { if case .string(let text) = $0 { text } else { nil } } as? T
        case is Bool.Type: return leaf("true or false", placeholder: false) { if case .bool(let flag) = $0 { flag } else { nil } } as? T
        case is Double.Type: return leaf("a number", placeholder: 0.0) { if case .number(let number) = $0 { number } else { nil } } as? T
        case is Float.Type: return leaf("a number", placeholder: Float(0)) { if case .number(let number) = $0 { Float(number) } else { nil } } as? T
        case is Int.Type: return integer(Int.self) as? T
        case is Int8.Type: return integer(Int8.self) as? T
        case is Int16.Type: return integer(Int16.self) as? T
        case is Int32.Type: return integer(Int32.self) as? T
        case is Int64.Type: return integer(Int64.self) as? T
        case is UInt.Type: return integer(UInt.self) as? T
        case is UInt8.Type: return integer(UInt8.self) as? T
        case is UInt16.Type: return integer(UInt16.self) as? T
        case is UInt32.Type: return integer(UInt32.self) as? T
        case is UInt64.Type: return integer(UInt64.self) as? T
        case is UUID.Type:
            return leaf("a UUID", placeholder: UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))) {
                if case .string(let text) = $0 { UUID(uuidString: text) } else { nil }
            } as? T
        case is JSONValue.Type:
            // Any JSON, read as data: its keys are the client's, none unknown.
            if value == nil { record(expected: "a value") }
            return (value ?? .null) as? T
        case is CalendarDate.Type:
            return leaf("a date as YYYY-MM-DD", placeholder: CalendarDate(year: 1970, month: 1)!) {
                if case .string(let text) = $0 { CalendarDate(text) } else { nil }
            } as? T
        default: return nil
        }
    }

    /// An integer of `type`: a JSON number without a fraction, within the type's range.
    private func integer<Integer: FixedWidthInteger>(_ type: Integer.Type) -> Integer {
        leaf("an integer", placeholder: 0) { value in
            if case .number(let number) = value { Integer(exactly: number) } else { nil }
        }
    }

    /// The value read by `read`, or `placeholder` with the problem recorded.
    private func leaf<Leaf>(_ expected: String, placeholder: Leaf, _ read: (JSONValue) -> Leaf?) -> Leaf {
        if let value, let leaf = read(value) { return leaf }
        record(expected: expected)
        return placeholder
    }
}

import Foundation

/// A `JSONEncoder` that writes every `UUID` in lower case, as RFC 9562 asks and as the contract says for every id the
/// system writes (bodies, events, exports, stored JSON). Foundation's encoder writes `UUID.uuidString`, upper case.
///
/// Everything else is the base encoder's: its date, data and key strategies and its output formatting still apply,
/// since dates, data, URLs, decimals, strings and numbers reach it untouched.
public final class WireJSONEncoder: JSONEncoder, @unchecked Sendable {
    /// The encoder of HTTP answers: ISO-8601 dates, as Hummingbird's default encoder writes them.
    public static func iso8601() -> WireJSONEncoder {
        let encoder = WireJSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }

    /// Encodes `value` with every UUID inside it in lower case.
    public override func encode<T: Encodable>(_ value: T) throws -> Data {
        if let uuid = value as? UUID { return try super.encode(uuid.lowercasedString) }
        if LowercaseUUIDs<T>.isLeaf(value) { return try super.encode(value) }
        return try super.encode(LowercaseUUIDs(value))
    }
}

extension UUID {
    /// The id as the system writes it everywhere: lower-case hexadecimal digits (RFC 9562).
    public var lowercasedString: String { uuidString.lowercased() }
}

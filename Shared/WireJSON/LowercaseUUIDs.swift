import Foundation

/// Wraps a value so that encoding it goes through ``LowercasingEncoder``, which writes UUIDs in lower case.
struct LowercaseUUIDs<Value: Encodable>: Encodable {
    let value: Value

    init(_ value: Value) { self.value = value }

    func encode(to encoder: Encoder) throws {
        try value.encode(to: LowercasingEncoder(base: encoder))
    }

    /// Values the base encoder must see as they are (its strategies apply to them) and that hold no UUID.
    static func isLeaf(_ value: some Encodable) -> Bool {
        value is String || value is Int || value is Double || value is Bool || value is Date || value is Data
            || value is URL || value is Decimal || value is Int64 || value is Float
    }

    /// What a container hands to its base for `value`: the lower-case text of a UUID, a leaf as it is, anything else
    /// wrapped so that its own parts are looked at in turn.
    static func prepared<T: Encodable>(_ value: T) -> any Encodable {
        if let uuid = value as? UUID { return uuid.lowercasedString }
        if isLeaf(value) { return value }
        return LowercaseUUIDs<T>(value)
    }
}

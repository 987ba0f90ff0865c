import APIContracts
import Foundation
import WireJSON

/// One item of an area's bulk import as the device sent it. Items are read one by one, so an item that cannot be read
/// rejects only itself, never the whole import.
public struct SyncImportItem: Sendable {
    /// The item as it came.
    public let value: JSONValue
    /// The item re-encoded with sorted keys: the tiebreak of its write stamp.
    public let bytes: Data

    public init(_ value: JSONValue) throws {
        self.value = value
        let encoder = WireJSONEncoder()
        encoder.outputFormatting = .sortedKeys
        self.bytes = try encoder.encode(value)
    }

    /// The item's `key` when it is a string (its client id), else "".
    public func string(_ key: String) -> String {
        if case .object(let fields) = value, case .string(let text)? = fields[key] { return text }
        return ""
    }

    /// The item as `type`, strictly (`StrictJSONDecoder`): 422 naming every field of the item that is wrong, its `id`
    /// known beside `type`'s fields.
    public func decoded<Value: Decodable>(as type: Value.Type) throws -> Value {
        try StrictJSONDecoder.decode(type, from: value, envelopeKeys: ["id"])
    }
}

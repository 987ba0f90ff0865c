import APIContracts
import Foundation
import WireJSON

/// One item of an area's bulk import as the device sent it. Items are read one by one, so an item that cannot be read
/// rejects only itself, never the whole import.
public struct SyncImportItem: Sendable {
    /// The item as it came.
    public let value: JSONValue
    /// The item re-encoded with sorted keys: what it is decoded from, and the tiebreak of its write stamp.
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

    /// The item as `type`; 400 `malformed_body` naming the field that could not be read, `what` the kind of item.
    public func decoded<Value: Decodable>(as type: Value.Type, what: String) throws -> Value {
        do {
            return try JSONDecoder().decode(type, from: bytes)
        } catch let error as DecodingError {
            throw APIError(
                .badRequest, code: "malformed_body", message: "The \(what) could not be read.", details: DecodingProblems.details(of: error))
        }
    }
}

import Foundation
import SyncContracts

/// What the contract checks read of a JSON value (the one `JSONValue` of `SyncContracts`, which the gateway also
/// passes through): members, strings, arrays, the JSON Schema types it has, and a short description for failures.
extension JSONValue: CustomStringConvertible {
    /// Parses `data` as one JSON document.
    public static func parse(_ data: Data) throws -> JSONValue {
        try JSONDecoder().decode(JSONValue.self, from: data)
    }

    public subscript(key: String) -> JSONValue? {
        if case .object(let members) = self { return members[key] }
        return nil
    }

    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    public var objectValue: [String: JSONValue]? {
        if case .object(let members) = self { return members }
        return nil
    }

    public var arrayValue: [JSONValue]? {
        if case .array(let elements) = self { return elements }
        return nil
    }

    /// The JSON Schema type names this value has (an integral number is both `integer` and `number`).
    var schemaTypes: Set<String> {
        switch self {
        case .null: ["null"]
        case .bool: ["boolean"]
        case .number(let value): value.rounded() == value && value.isFinite ? ["number", "integer"] : ["number"]
        case .string: ["string"]
        case .array: ["array"]
        case .object: ["object"]
        }
    }

    public var description: String {
        switch self {
        case .null: "null"
        case .bool(let value): "\(value)"
        case .number(let value): value.rounded() == value && abs(value) < 1e15 ? "\(Int64(value))" : "\(value)"
        case .string(let value): "\"\(value.prefix(60))\(value.count > 60 ? "…" : "")\""
        case .array(let elements): "[\(elements.count) elements]"
        case .object(let members): "{\(members.keys.sorted().prefix(6).joined(separator: ", "))\(members.count > 6 ? ", …" : "")}"
        }
    }
}

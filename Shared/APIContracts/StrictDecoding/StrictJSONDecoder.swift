import Foundation

/// Reads request bodies strictly and reports everything wrong at once, in the one validation shape: 400
/// `malformed_body` only for bytes that are not JSON; for JSON, 422 `unknown_field` when the only problems are keys the
/// request type does not have (each with the known key it most resembles), else 422 `validation_failed` naming every
/// field that is missing, null, of the wrong type or unknown, each path spelt as `FieldPath` spells it.
///
/// Any `Decodable` works unchanged: the decoder records the keys each type asks for while it decodes, then reports
/// the keys nobody asked for. A type that reads an object's keys as data (a dictionary) accepts any key there.
public enum StrictJSONDecoder {
    /// `Value` from JSON bytes.
    public static func decode<Value: Decodable>(_ type: Value.Type, from data: Data) throws -> Value {
        let tree: JSONValue
        do {
            tree = try JSONDecoder().decode(JSONValue.self, from: data)
        } catch {
            throw APIError(
                .badRequest, code: "malformed_body", message: "The request body is not JSON.", details: ["body": "is not valid JSON"])
        }
        return try decode(type, from: tree)
    }

    /// `Value` from a JSON value already read, found at `path` of the request body; `envelopeKeys` are keys of the value's
    /// object that its container reads, not `Value` (an import item's `id`).
    public static func decode<Value: Decodable>(
        _ type: Value.Type, from value: JSONValue, at path: FieldPath = .body, envelopeKeys: Set<String> = []
    ) throws -> Value {
        let ledger = DecodingLedger()
        let decoder = StrictTreeDecoder(value: value, codingPath: path.steps.map(PathKey.init), ledger: ledger, muted: false)
        let decoded: Value?
        do {
            if case .object(let fields) = value {
                ledger.noteObject(at: path, keys: Array(fields.keys))
                for key in envelopeKeys { ledger.noteAsked(key, at: path) }
            }
            decoded = try decoder.decodeValue(type)
        } catch is DecodingAborted {
            decoded = nil
        }
        let unknown = ledger.unknownKeys()
        guard let decoded, ledger.problems.isEmpty, unknown.isEmpty else {
            throw APIError(problems: ledger.problems, unknown: unknown)
        }
        return decoded
    }
}

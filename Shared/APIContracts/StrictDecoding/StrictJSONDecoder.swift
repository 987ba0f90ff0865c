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

extension APIError {
    /// The 422 of a body with `problems` (field to what is wrong) and `unknown` keys (each with its closest known key).
    init(problems: [FieldPath: String], unknown: [FieldPath: String?]) {
        var details: [String: String] = [:]
        for (path, problem) in problems { details[path.description] = problem }
        for (path, suggestion) in unknown {
            details[path.description] = suggestion.map { "is not a known field; did you mean \"\($0)\"?" } ?? "is not a known field"
        }
        if problems.isEmpty {
            self.init(
                .unprocessableContent, code: "unknown_field",
                message: "The request has fields this operation does not know; nothing was changed.", details: details)
        } else {
            self.init(.unprocessableContent, code: "validation_failed", message: "Some values are invalid.", details: details)
        }
    }
}

/// Decoding cannot go on (a type's own check failed where no placeholder can stand in); what was recorded is reported.
struct DecodingAborted: Error {}

/// A coding key made from a path step, for the coding path of a value decoded below the body's root.
struct PathKey: CodingKey {
    var stringValue: String
    var intValue: Int?

    init(_ step: FieldPath.Step) {
        switch step {
        case .key(let key): (stringValue, intValue) = (key, nil)
        case .index(let index): (stringValue, intValue) = ("\(index)", index)
        }
    }

    init?(stringValue: String) { (self.stringValue, self.intValue) = (stringValue, nil) }
    init?(intValue: Int) { (self.stringValue, self.intValue) = ("\(intValue)", intValue) }
}

import ContractTesting
import Foundation
import SyncContracts
import Testing

@Suite("JSON Schema checks used by the contract tests")
struct JSONSchemaValidatorTests {
    let document = try! JSONValue.parse(
        Data(
            ##"""
            {
              "components": { "schemas": {
                "Meal": {
                  "type": "object", "additionalProperties": false, "required": ["id", "calories", "kind"],
                  "properties": {
                    "id": { "type": "string", "format": "uuid" },
                    "calories": { "type": "integer", "minimum": 0 },
                    "kind": { "enum": ["breakfast", "lunch"] },
                    "notes": { "type": ["string", "null"], "maxLength": 5 },
                    "eatenAt": { "type": "string", "format": "date-time" },
                    "day": { "type": "string", "format": "date" },
                    "tags": { "type": "array", "items": { "type": "string", "pattern": "^[a-z]+$" }, "maxItems": 2 },
                    "score": { "oneOf": [ { "type": "integer" }, { "type": "string" } ] }
                  }
                }
              } }
            }
            """##.utf8))
    var validator: JSONSchemaValidator { JSONSchemaValidator(document: document) }
    let meal: JSONValue = .object(["$ref": .string("#/components/schemas/Meal")])

    func problems(_ json: String) throws -> [String] {
        validator.problems(of: try JSONValue.parse(Data(json.utf8)), against: meal)
    }

    @Test("a conforming value has no problems, with nulls, integral numbers and every format")
    func conforming() throws {
        let found = try problems(
            #"{"id":"6F9619FF-8B86-D011-B42D-00C04FC964FF","calories":420.0,"kind":"lunch","notes":null,"eatenAt":"2026-11-22T08:30:00.123Z","#
                + #""day":"2026-02-28","tags":["keto"],"score":3}"#
        )
        #expect(found.isEmpty, "\(found)")
    }

    @Test(
        "each kind of mismatch is reported at its path",
        arguments: [
            (#"{"calories":1,"kind":"lunch"}"#, "missing required property id"),
            (#"{"id":"x","calories":1,"kind":"lunch"}"#, "$.id: \"x\" is not a uuid"),
            (#"{"id":"6F9619FF-8B86-D011-B42D-00C04FC964FF","calories":1.5,"kind":"lunch"}"#, "$.calories: 1.5 is not of type integer"),
            (#"{"id":"6F9619FF-8B86-D011-B42D-00C04FC964FF","calories":-1,"kind":"lunch"}"#, "$.calories: -1.0 is below 0.0"),
            (#"{"id":"6F9619FF-8B86-D011-B42D-00C04FC964FF","calories":true,"kind":"lunch"}"#, "$.calories: true is not of type integer"),
            (#"{"id":"6F9619FF-8B86-D011-B42D-00C04FC964FF","calories":1,"kind":"dinner"}"#, "$.kind: \"dinner\" is not one of"),
            (#"{"id":"6F9619FF-8B86-D011-B42D-00C04FC964FF","calories":1,"kind":"lunch","extra":1}"#, "$.extra: no value is allowed here"),
            (#"{"id":"6F9619FF-8B86-D011-B42D-00C04FC964FF","calories":1,"kind":"lunch","notes":"too long"}"#, "$.notes: longer than 5"),
            (#"{"id":"6F9619FF-8B86-D011-B42D-00C04FC964FF","calories":1,"kind":"lunch","eatenAt":"yesterday"}"#, "is not a date-time"),
            (#"{"id":"6F9619FF-8B86-D011-B42D-00C04FC964FF","calories":1,"kind":"lunch","day":"2026-02-30"}"#, "is not a date"),
            (#"{"id":"6F9619FF-8B86-D011-B42D-00C04FC964FF","calories":1,"kind":"lunch","tags":["Keto"]}"#, #"$.tags[0]: "Keto" does not match"#),
            (#"{"id":"6F9619FF-8B86-D011-B42D-00C04FC964FF","calories":1,"kind":"lunch","tags":["a","b","c"]}"#, "$.tags: more than 2 items"),
            (#"{"id":"6F9619FF-8B86-D011-B42D-00C04FC964FF","calories":1,"kind":"lunch","score":1.5}"#, "matches 0 branches of oneOf"),
        ])
    func mismatches(json: String, expected: String) throws {
        let found = try problems(json)
        #expect(found.contains { $0.contains(expected) }, "expected a problem containing \(expected), got \(found)")
    }

    /// The rules between fields the API document states: `not`, `if`/`then`/`else`, `dependentRequired` and
    /// `dependentSchemas` (JSON Schema 2020-12), beside an object's own properties.
    static let item = #"""
        {"type": "object", "additionalProperties": false, "minProperties": 1,
         "properties": {"productId": {"type": ["string", "null"]}, "calories": {"type": ["number", "null"]},
                        "grams": {"type": ["number", "null"]}, "servings": {"type": ["number", "null"]},
                        "name": {"type": ["string", "null"], "not": {"const": "nothing"}}},
         "dependentSchemas": {"productId": {"properties": {"calories": {"type": "null"}}}},
         "dependentRequired": {"servings": ["productId"]},
         "if": {"properties": {"productId": {"type": "null"}}},
         "then": {"required": ["grams"], "properties": {"grams": {"type": "number"}}},
         "else": {"not": {"required": ["grams", "servings"]}}}
        """#

    @Test(
        "rules between fields: each mismatch is reported, and what they allow passes",
        arguments: [
            (#"{"productId": "p", "servings": 2}"#, nil),
            (#"{"productId": "p", "calories": null, "grams": 10}"#, nil),
            (#"{"grams": 10, "calories": 5, "name": "soup"}"#, nil),
            (#"{}"#, "fewer than 1 properties"),
            (#"{"productId": "p", "calories": 5}"#, "$.calories: 5 is not of type null"),
            (#"{"servings": 2, "grams": 1}"#, "servings needs productId"),
            (#"{"calories": 5}"#, "missing required property grams"),
            (#"{"productId": "p", "grams": 10, "servings": 1}"#, "matches what `not` excludes"),
            (#"{"grams": 10, "name": "nothing"}"#, "$.name: \"nothing\" matches what `not` excludes"),
        ] as [(String, String?)])
    func rulesBetweenFields(json: String, expected: String?) throws {
        let found = validator.problems(of: try JSONValue.parse(Data(json.utf8)), against: try JSONValue.parse(Data(Self.item.utf8)))
        if let expected {
            #expect(found.contains { $0.contains(expected) }, "expected a problem containing \(expected), got \(found)")
        } else {
            #expect(found.isEmpty, "\(found)")
        }
        #expect(validator.unsupportedKeywords(in: try JSONValue.parse(Data(Self.item.utf8)), at: "#").isEmpty)
    }

    @Test("keywords the validator does not check, and dangling references, are reported")
    func unsupportedKeywords() throws {
        let schema = try JSONValue.parse(
            Data(##"{"type":"object","nullable":true,"properties":{"a":{"$ref":"#/components/schemas/Missing"},"b":{"format":"ipv4"}}}"##.utf8))
        let found = validator.unsupportedKeywords(in: schema, at: "#")
        #expect(found.contains("#: nullable"))
        #expect(found.contains { $0.contains("unresolvable $ref #/components/schemas/Missing") })
        #expect(found.contains("#/properties/b: format ipv4"))
    }
}

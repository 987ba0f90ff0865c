import Foundation
import TestSupport
import Testing

@testable import APIContracts

/// The strict request decoder: every problem of a body at once, one path spelling, unknown fields with the known field
/// they resemble, and, for bodies without a problem, the same values Foundation's decoder reads.
@Suite("Strict request bodies")
struct StrictJSONDecoderTests {
    struct Item: Codable, Equatable {
        var productId: UUID?
        var name: String?
        var grams: Double?
        var servings: Int?
        var protein: Double?
    }

    struct Entry: Codable, Equatable {
        var items: [Item]
        var title: String?
        var eatenAt: String?
        var consumed: Bool?
        var tags: [String]?
        var day: CalendarDate?
        var extra: [String: Int]?
    }

    /// What decoding `json` as `Entry` answers: nil when it decodes, else the status, code and details.
    func refusal(_ json: String) -> (status: Int, code: String, details: [String: String])? {
        do {
            _ = try StrictJSONDecoder.decode(Entry.self, from: Data(json.utf8))
            return nil
        } catch let error as APIError {
            return (error.status.code, error.code, error.details)
        } catch {
            Issue.record("not an APIError: \(error)")
            return nil
        }
    }

    @Test(
        "a body with problems is refused naming every one, each path spelt items[0].field",
        arguments: [
            (
                #"{"items": [{"proteinGrams": 1}]}"#, 422, "unknown_field",
                ["items[0].proteinGrams": #"is not a known field; did you mean "protein"?"#]
            ),
            (
                #"{"items": [{"productId": 7}, {"grams": "ten"}], "title": 3}"#, 422, "validation_failed",
                ["items[0].productId": "must be a UUID", "items[1].grams": "must be a number", "title": "must be a string"]
            ),
            (
                #"{"items": [{"servings": 1.5}], "consumed": "yes"}"#, 422, "validation_failed",
                ["items[0].servings": "must be an integer", "consumed": "must be true or false"]
            ),
            (#"{"title": "Lunch"}"#, 422, "validation_failed", ["items": "is required"]),
            (#"{"items": null}"#, 422, "validation_failed", ["items": "must be an array, not null"]),
            (#"null"#, 422, "validation_failed", ["body": "must be an object, not null"]),
            (#"[1, 2]"#, 422, "validation_failed", ["body": "must be an object"]),
            (#""text""#, 422, "validation_failed", ["body": "must be an object"]),
            (
                #"{"items": [], "eaten_at": "2026-01-01T10:00:00Z"}"#, 422, "unknown_field",
                ["eaten_at": #"is not a known field; did you mean "eatenAt"?"#]
            ),
            (
                #"{"items": [], "titel": "x", "zzz": 1}"#, 422, "unknown_field",
                ["titel": #"is not a known field; did you mean "title"?"#, "zzz": "is not a known field"]
            ),
            (
                #"{"items": [{"grams": true, "Name": "x"}]}"#, 422, "validation_failed",
                ["items[0].grams": "must be a number", "items[0].Name": #"is not a known field; did you mean "name"?"#]
            ),
            (#"{"items": [], "day": "2026-02-30"}"#, 422, "validation_failed", ["day": "must be a date as YYYY-MM-DD"]),
            (#"{"items": [], "tags": ["a", 2]}"#, 422, "validation_failed", ["tags[1]": "must be a string"]),
            (#"{"items": [], "extra": {"a": "b"}}"#, 422, "validation_failed", ["extra.a": "must be an integer"]),
            (#"{"items": [{"servings": 1e30}]}"#, 422, "validation_failed", ["items[0].servings": "must be an integer"]),
            (#"{"items": [}"#, 400, "malformed_body", ["body": "is not valid JSON"]),
            ("", 400, "malformed_body", ["body": "is not valid JSON"]),
        ])
    func refusals(json: String, status: Int, code: String, details: [String: String]) throws {
        let answer = try #require(refusal(json), "accepted \(json)")
        #expect(answer.status == status, "\(json)")
        #expect(answer.code == code, "\(json)")
        #expect(answer.details == details, "\(json)")
    }

    @Test("a key that is not a name is spelt as a JSON string in brackets, never bare and never with a control character")
    func oddKeys() throws {
        let json = #"{"items": [{"": 1, "a.b": 2}], "\u0006x\"": 3, "extra": {"k l": "v"}}"#
        let answer = try #require(refusal(json), "accepted \(json)")
        #expect(answer.status == 422)
        #expect(Set(answer.details.keys) == [#"items[0][""]"#, #"items[0]["a.b"]"#, #"["\u0006x\""]"#, #"extra["k l"]"#], "\(answer.details)")
        #expect(FieldPath(steps: [.key("per100g"), .key("sugars")]).description == "per100g.sugars")
        #expect(FieldPath(steps: [.key("a-b_$1")]).description == "a-b_$1")
        #expect(FieldPath(steps: [.key("1st"), .key("\u{85}")]).description == #"["1st"]["\u0085"]"#)
    }

    @Test("keys of a dictionary are data, not fields; null is an absent optional; any case of a UUID is read")
    func accepted() throws {
        let json = #"{"items": [{"productId": "6F9619FF-8B86-D011-B42D-00C04FC964FF", "servings": 2.0}], "title": null, "extra": {"anything": 1}}"#
        let entry = try StrictJSONDecoder.decode(Entry.self, from: Data(json.utf8))
        #expect(entry.items.first?.productId == UUID(uuidString: "6f9619ff-8b86-d011-b42d-00c04fc964ff"))
        #expect(entry.items.first?.servings == 2)
        #expect(entry.title == nil)
        #expect(entry.extra == ["anything": 1])
    }

    @Test("an item's envelope keys are known beside the type's own, and paths start where the item sits")
    func envelopeKeys() throws {
        let item: JSONValue = .object(["id": .string("x"), "grams": .number(10), "gram": .number(1)])
        do {
            _ = try StrictJSONDecoder.decode(Item.self, from: item, at: FieldPath(steps: [.key("meals"), .index(2)]), envelopeKeys: ["id"])
            Issue.record("accepted an unknown field")
        } catch let error as APIError {
            #expect(error.code == "unknown_field")
            #expect(error.details == ["meals[2].gram": #"is not a known field; did you mean "grams"?"#])
        }
    }

    @Test("bodies without a problem decode as Foundation's decoder decodes them (seeded)", arguments: 0..<200)
    func agreesWithFoundation(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        let entry = Self.randomEntry(using: &random)
        let data = try JSONEncoder().encode(entry)
        let strict = try StrictJSONDecoder.decode(Entry.self, from: data)
        let foundation = try JSONDecoder().decode(Entry.self, from: data)
        #expect(strict == foundation, "seed \(seed): \(String(decoding: data, as: UTF8.self))")
        #expect(strict == entry, "seed \(seed)")
    }

    static func randomEntry(using random: inout SplitMix64) -> Entry {
        func maybe<T>(_ value: @autoclosure () -> T) -> T? { Bool.random(using: &random) ? value() : nil }
        func uuid() -> UUID {
            let (high, low) = (random.next(), random.next())
            return withUnsafeBytes(of: (high, low)) { UUID(uuid: $0.load(as: uuid_t.self)) }
        }
        let items = (0..<Int.random(in: 0...3, using: &random)).map { _ in
            Item(
                productId: maybe(uuid()), name: maybe("food \(Int.random(in: 0...99, using: &random))"),
                grams: maybe(Double(Int.random(in: 0...5000, using: &random)) / 10), servings: maybe(Int.random(in: -3...30, using: &random)),
                protein: maybe(Double.random(in: 0...100, using: &random)))
        }
        return Entry(
            items: items, title: maybe("lunch \u{1F957}"), eatenAt: maybe("2026-03-29T01:30:00+13:00"), consumed: maybe(Bool.random(using: &random)),
            tags: maybe(["a", "b c"]), day: maybe(CalendarDate(ordinal: Int.random(in: 0...30_000, using: &random))),
            extra: maybe(["k\(Int.random(in: 0...9, using: &random))": Int.random(in: -5...5, using: &random)]))
    }
}

@Suite("The closest known field")
struct FieldSuggestionTests {
    @Test(
        "suggests what was meant, and nothing when nothing is close",
        arguments: [
            ("proteinGrams", ["protein", "carbs", "fat"], "protein"),
            ("eaten_at", ["eatenAt", "mealType"], "eatenAt"),
            ("MealType", ["eatenAt", "mealType"], "mealType"),
            ("calroies", ["calories", "carbs"], "calories"),
            ("wieght", ["weight", "unit"], "weight"),
            ("colour", ["weight", "unit"], nil),
            ("x", ["grams"], nil),
        ] as [(String, Set<String>, String?)])
    func suggestions(field: String, known: Set<String>, expected: String?) {
        #expect(FieldSuggestion.closest(to: field, among: known) == expected)
    }
}

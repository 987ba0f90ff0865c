import Foundation
import HTTPTypes
import NIOCore
import Testing

@testable import MealsService

/// `POST /api/analyze` with `kind=label` at the router on in-memory stores, the real vision client talking to a local
/// chat-completions stand-in: a nutrition label read into a draft product.
@Suite("Nutrition labels read through POST /api/analyze")
struct LabelRoutesTests {
    static let photo = Data([0xFF, 0xD8, 0xFF, 0xE0] + [UInt8](repeating: 7, count: 600))

    /// A JSON request for a label photo, with `extra` fields (`,"barcode":"…"`).
    static func labelJSON(_ extra: String = "") -> String {
        #"{"kind":"label","image":"\#(photo.base64EncodedString())"\#(extra)}"#
    }

    @Test("a label photo (JSON or the photo alone) is read into a draft product: 200, the barcode carried, nothing stored, counted")
    func readsLabel() async throws {
        try await FakeVisionProvider.run([.content(NutritionLabelAnswerTests.yoghurt)]) { provider, url in
            let harness = MealsRouterHarness()
            try await harness.withRoutes(visionURL: url) { client in
                let read = try await client.call(.post, "/api/analyze", json: Self.labelJSON(#","barcode":"0360-0029-1452""#))
                #expect(read.status == .ok, "\(read.text)")
                #expect(read.json["kind"] as? String == "label" && read.number("confidence") == 0.9)
                let product = try #require(read.json["product"] as? [String: Any])
                #expect(product["barcode"] as? String == "00036000291452" && product["name"] as? String == "Greek yoghurt")
                #expect((product["servingSize"] as? [String: Any])?["unit"] as? String == "g" && product["per100ml"] == nil)
                let per100g = try #require(product["per100g"] as? [String: Any])
                #expect((per100g["calories"] as? NSNumber)?.doubleValue == 60 && (per100g["sodium"] as? NSNumber)?.doubleValue == 40)
                #expect(per100g["fiber"] is NSNull, "a value the label does not show is null")
                #expect(((read.json["perServing"] as? [String: Any])?["calories"] as? NSNumber)?.doubleValue == 90)
                #expect(read.json["missingNutrients"] as? [String] == ["fiber"] && read.json["conversions"] as? [String] == ["sodium_from_salt"])
                #expect(harness.store.allMeals.isEmpty, "a label is not a meal")

                let asked = try #require(provider.received.last?.json)
                let format = (asked["response_format"] as? [String: Any])?["json_schema"] as? [String: Any]
                #expect(format?["name"] as? String == "nutrition_label" && format?["strict"] as? Bool == true)

                let alone = try await client.call(
                    .post, "/api/analyze?kind=label&hint=per%20100%20g", headers: [.contentType: "image/jpeg"], body: ByteBuffer(data: Self.photo))
                #expect(alone.status == .ok && alone.json["product"] != nil, "\(alone.text)")
                let messages = provider.received.last?.json["messages"] as? [[String: Any]]
                let text = (messages?.last?["content"] as? [[String: Any]])?.first?["text"] as? String
                #expect(text?.hasSuffix("per 100 g") == true)

                let usage = try await client.call(.get, "/api/users/vision-usage")
                #expect(usage.number("calls") == 2, "each label read is counted like a meal photo")
            }
        }
    }

    @Test("refusals before the provider is asked: an unknown kind, a text or meal fields with a label, a bad barcode, a barcode with a meal")
    func refusals() async throws {
        try await FakeVisionProvider.run([.content(NutritionLabelAnswerTests.yoghurt)]) { provider, url in
            let harness = MealsRouterHarness()
            try await harness.withRoutes(visionURL: url) { client in
                let cases: [(String, String)] = [
                    (#"{"kind":"receipt","text":"an apple"}"#, "kind"),
                    (#"{"kind":"label","text":"60 kcal per 100 g"}"#, "text"),
                    (#"{"kind":"label"}"#, "image"),
                    (Self.labelJSON(#","mealType":"lunch""#), "mealType"),
                    (Self.labelJSON(#","tags":["work"]"#), "tags"),
                    (Self.labelJSON(#","barcode":"036000291453""#), "barcode"),
                    (#"{"text":"an apple","barcode":"036000291452"}"#, "barcode"),
                ]
                for (body, field) in cases {
                    let refused = try await client.call(.post, "/api/analyze", json: body)
                    #expect(refused.status == .unprocessableContent && refused.details[field] != nil, "\(body): \(refused.text)")
                }
                #expect(provider.calls == 0 && harness.store.allMeals.isEmpty)
            }
        }
    }

    @Test("unreadable labels are 422 label_unreadable and, from many users, never switch photo analysis off for others")
    func unreadable() async throws {
        try await FakeVisionProvider.run([.content(NutritionLabelAnswerTests.answer(isLabel: false))]) { provider, url in
            let harness = MealsRouterHarness()
            try await harness.withRoutes(visionURL: url) { client in
                for _ in 0..<8 {
                    let refused = try await client.call(.post, "/api/analyze", json: Self.labelJSON(), as: UUID())
                    #expect(refused.status == .unprocessableContent && refused.errorCode == "label_unreadable", "\(refused.text)")
                    #expect(refused.details["suggestions"] as? String == "retake_photo,enter_label")
                }
                provider.script([.items([MealPhotoItems.rice])])
                let meal = try await client.call(.post, "/api/analyze", json: AnalyzeRoutesTests.photoJSON)
                #expect(meal.status == .created, "the breaker stayed closed: \(meal.text)")
                #expect(provider.calls == 9, "every photo reached the provider")
            }
        }
    }
}

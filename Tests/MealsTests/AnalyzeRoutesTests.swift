import Foundation
import HTTPTypes
import NIOCore
import Testing

@testable import MealsService

/// `POST /api/analyze`, `/api/users/vision-key` and `/api/users/vision-usage` at the router on in-memory stores, with
/// the real vision client and key check talking to a local stand-in for an OpenAI-compatible provider.
@Suite("Analysis and vision key routes on in-memory stores")
struct AnalyzeRoutesTests {
    typealias Reply = FakeVisionProvider.Reply

    /// A JSON analysis request of a (JPEG-signed) photo, base64.
    static var photoJSON: String {
        #"{"image":"\#(Data([0xFF, 0xD8, 0xFF, 0xE0] + [UInt8](repeating: 9, count: 600)).base64EncodedString())","hint":"lunch"}"#
    }

    @Test("a text is analysed into scored items from the table, stored unconsumed (201); nothing recognised is 422, and nothing is stored")
    func text() async throws {
        let harness = MealsRouterHarness()
        try await harness.withRoutes { client in
            let analysed = try await client.call(.post, "/api/analyze", json: #"{"text":"2 eggs and a banana","mealType":"breakfast"}"#)
            #expect(analysed.status == .created && analysed.headers[.eTag] == "\"1\"", "\(analysed.text)")
            let meal = analysed.json
            #expect(meal["origin"] as? String == "text" && meal["isConsumed"] as? Bool == false && meal["mealType"] as? String == "breakfast")
            #expect((meal["items"] as? [[String: Any]])?.count == 2 && analysed.json["usageWarning"] == nil)
            let nothing = try await client.call(.post, "/api/analyze", json: #"{"text":"qwzx plorb"}"#)
            #expect(nothing.status == .unprocessableContent && nothing.errorCode == "no_food_recognised")
            #expect(harness.store.allMeals.count == 1)
        }
    }

    @Test("refusals: neither or both of photo and text 422, a photo not in strict base64 422, another media type 415, no provider 503, too large 413")
    func refusals() async throws {
        let harness = MealsRouterHarness()
        try await harness.withRoutes { client in
            let neither = try await client.call(.post, "/api/analyze", json: #"{"mealType":"lunch"}"#)
            #expect(neither.status == .unprocessableContent && neither.details["image"] != nil)
            let both = try await client.call(.post, "/api/analyze", json: #"{"text":"an apple","image":"/9j/4AAQ"}"#)
            #expect(both.status == .unprocessableContent && both.details["text"] != nil)
            for image in [#"/9j/\n4AAQ"#, "/9j/4AA", "/9j/4A A"] {
                let notBase64 = try await client.call(.post, "/api/analyze", json: #"{"image":"\#(image)"}"#)
                #expect(notBase64.status == .unprocessableContent && notBase64.details["image"] != nil, "strict base64: \(image)")
            }
            let multipart: HTTPFields = [.contentType: "multipart/form-data; boundary=XyZ"]
            let emptyForm = try await client.call(.post, "/api/analyze", headers: multipart, body: ByteBuffer(string: "--XyZ--\r\n"))
            #expect(emptyForm.status == .unprocessableContent && emptyForm.details["image"] != nil, "a form of no fields names what is missing")
            let form = try await client.call(.post, "/api/analyze", headers: [.contentType: "text/plain"], body: ByteBuffer(string: "an apple"))
            #expect(form.status == .unsupportedMediaType && form.errorCode == "unsupported_media_type")
            let noProvider = try await client.call(.post, "/api/analyze", json: Self.photoJSON)
            #expect(noProvider.status == .serviceUnavailable && noProvider.errorCode == "vision_not_configured")
            let large = Data([0xFF, 0xD8, 0xFF] + [UInt8](repeating: 1, count: MealsRouterHarness.maxImageBytes)).base64EncodedString()
            let tooLarge = try await client.call(.post, "/api/analyze", json: #"{"image":"\#(large)"}"#)
            #expect(tooLarge.status == .contentTooLarge)
            #expect(harness.store.allMeals.isEmpty)
        }
    }

    @Test("a photo goes to the server's provider, its items are grounded and stored with the photo, and the call is counted as the server's")
    func photoThroughTheServer() async throws {
        try await FakeVisionProvider.run([.items([MealPhotoItems.rice, MealPhotoItems.egg])]) { provider, url in
            let harness = MealsRouterHarness()
            try await harness.withRoutes(visionURL: url) { client in
                let analysed = try await client.call(.post, "/api/analyze", json: Self.photoJSON)
                #expect(analysed.status == .created, "\(analysed.text)")
                let meal = analysed.json
                #expect(meal["origin"] as? String == "photo" && (meal["items"] as? [[String: Any]])?.count == 2 && meal["photoUrl"] != nil)
                #expect(provider.received.first?.authorization == "Bearer sk-server-key")
                let usage = try await client.call(.get, "/api/users/vision-usage")
                #expect(usage.number("calls") == 1 && usage.list("byKey").first?["key"] as? String == "server")
                #expect(usage.number("ownKeyEstimatedCostUsd") == 0, "the server's key is not the user's spending")

                provider.script([.content("not json at all")])
                let garbage = try await client.call(.post, "/api/analyze", json: Self.photoJSON)
                #expect(garbage.status.code >= 400 && garbage.status.code != 500, "\(garbage.status)")
                #expect(harness.store.allMeals.count == 1, "a failed analysis stores nothing")
            }
        }
    }

    @Test("a user's own key is checked with the provider, stored sealed, never answered, used for their photos and counted against their budget")
    func ownKey() async throws {
        try await FakeVisionProvider.run([.items([MealPhotoItems.rice])], acceptedKeys: ["sk-users-own-key"]) { provider, url in
            let harness = MealsRouterHarness()
            try await harness.withRoutes { client in
                #expect(try await client.call(.get, "/api/users/vision-key").json["configured"] as? Bool == false)
                let refused = try await client.call(
                    .put, "/api/users/vision-key", json: #"{"apiKey":"sk-someone-elses","baseUrl":"\#(url.absoluteString)","model":"m-1"}"#)
                #expect(refused.status == .unprocessableContent && refused.errorCode == "vision_key_invalid")
                let stored = try await client.call(
                    .put, "/api/users/vision-key", json: #"{"apiKey":"sk-users-own-key","baseUrl":"\#(url.absoluteString)","model":"m-1"}"#)
                #expect(stored.status == .ok && stored.json["configured"] as? Bool == true && stored.json["model"] as? String == "m-1")
                #expect(!stored.text.contains("sk-users-own-key"), "the key is never answered")
                let sealed = try #require(harness.vision.sealedKey(of: harness.owner))
                #expect(!String(decoding: sealed, as: UTF8.self).contains("sk-users-own-key"), "the key is stored sealed")
                let status = try await client.call(.get, "/api/users/vision-key")
                #expect(status.json["baseUrl"] as? String == url.absoluteString && !status.text.contains("sk-users-own-key"))

                let budget = try await client.call(.put, "/api/users/vision-usage/budget", json: #"{"monthlyBudgetUsd":1}"#)
                #expect(budget.status == .ok && budget.number("monthlyBudgetUsd") == 1)
                let analysed = try await client.call(.post, "/api/analyze", json: Self.photoJSON)
                #expect(analysed.status == .created && provider.received.last?.authorization == "Bearer sk-users-own-key")
                let warning = try #require(analysed.json["usageWarning"] as? [String: Any], "1.1 dollars of a 1 dollar budget")
                #expect(warning["code"] as? String == "vision_budget_exceeded")
                let usage = try await client.call(.get, "/api/users/vision-usage")
                #expect(usage.list("byKey").first?["key"] as? String == "own" && usage.list("byKey").first?["current"] as? Bool == true)
                #expect((usage.json["usageWarning"] as? [String: Any])?["code"] as? String == "vision_budget_exceeded")

                #expect(try await client.call(.delete, "/api/users/vision-usage/budget").status == .noContent)
                #expect(try await client.call(.get, "/api/users/vision-usage").json["monthlyBudgetUsd"] == nil)
                #expect(try await client.call(.delete, "/api/users/vision-key").status == .noContent)
                #expect(try await client.call(.get, "/api/users/vision-key").json["configured"] as? Bool == false)
                let noProvider = try await client.call(.post, "/api/analyze", json: Self.photoJSON)
                #expect(noProvider.status == .serviceUnavailable, "without their key and without the server's, no photo analysis")
            }
        }
    }

    @Test("vision key and usage refusals: each unusable field 422, a private base URL 422, no encryption key 503, a bad month or budget 422")
    func keyAndUsageRefusals() async throws {
        let harness = MealsRouterHarness()
        try await harness.withRoutes { client in
            let fields = try await client.call(.put, "/api/users/vision-key", json: #"{"apiKey":"short","model":"has spaces"}"#)
            #expect(fields.status == .unprocessableContent && fields.details["apiKey"] != nil && fields.details["model"] != nil)
            let privateHost = try await client.call(
                .put, "/api/users/vision-key", json: #"{"apiKey":"sk-long-enough","baseUrl":"https://10.0.0.8/v1"}"#)
            #expect(privateHost.status == .unprocessableContent && privateHost.details["baseUrl"] != nil)
            #expect(try await client.call(.get, "/api/users/vision-usage?month=May").status == .unprocessableContent)
            for budget in ["0", "-5", "100001", "null"] {
                let refused = try await client.call(.put, "/api/users/vision-usage/budget", json: #"{"monthlyBudgetUsd":\#(budget)}"#)
                #expect(refused.status == .unprocessableContent, "a budget of \(budget) answered \(refused.status)")
            }
            let empty = try await client.call(.get, "/api/users/vision-usage?month=2026-04")
            #expect(empty.status == .ok && empty.json["month"] as? String == "2026-04" && empty.number("calls") == 0)
        }
        let unkeyed = MealsRouterHarness(visionKeysConfigured: false)
        try await unkeyed.withRoutes { client in
            let refused = try await client.call(.put, "/api/users/vision-key", json: #"{"apiKey":"sk-long-enough"}"#)
            #expect(refused.status == .serviceUnavailable && refused.errorCode == "vision_keys_not_configured")
        }
    }
}

import AsyncHTTPClient
import Foundation
import HTTPTypes
import Logging
import Testing

@testable import MealsService

@Suite("Vision client against a live chat-completions server")
struct VisionClientTests {
    static let photoBytes: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x48, 0x44, 0x52]
    let photo = PhotoUpload(bytes: photoBytes, format: .png)
    /// The user the tests' photos are from.
    static let caller = UUID()

    /// A client for the fake server at `baseURL` with 10 ms backoffs, so retries keep the tests quick.
    static func client(
        _ baseURL: URL, apiKey: String? = "sk-test-key", timeout: Duration = .seconds(5), total: Duration = .seconds(10),
        attempts: Int = 3
    ) -> OpenAICompatibleVisionClient {
        let settings = VisionSettings(
            baseURL: baseURL, apiKey: apiKey, model: "vision-test-model", requestTimeout: timeout, totalTimeout: total,
            maxAttempts: attempts, initialBackoff: .milliseconds(10))
        return OpenAICompatibleVisionClient(settings: settings, httpClient: .shared, logger: Logger(label: "vision-test"))
    }

    /// The error `operation` threw, or nil when it succeeded.
    static func visionError(_ operation: () async throws -> [RecognisedItem]) async -> VisionError? {
        do {
            _ = try await operation()
            return nil
        } catch {
            return error as? VisionError
        }
    }

    @Test("a good answer becomes the items; the request carries the model, the key, the photo and the strict schema")
    func goodAnswer() async throws {
        try await FakeVisionProvider.run([.items([MealPhotoItems.rice, MealPhotoItems.egg])]) { fake, url in
            let items = try await Self.client(url).recognise(photo, hint: "  rice with two eggs  ", caller: Self.caller)
            #expect(items == MealPhotoItems.expected)

            let request = try #require(fake.received.first)
            #expect(fake.calls == 1)
            #expect(request.path == "/v1/chat/completions")
            #expect(request.authorization == "Bearer sk-test-key")
            let body = request.json
            #expect(body["model"] as? String == "vision-test-model")
            #expect(body["temperature"] as? Double == 0)

            let messages = try #require(body["messages"] as? [[String: Any]])
            #expect(messages.map { $0["role"] as? String } == ["system", "user"])
            #expect((messages[0]["content"] as? String)?.contains("Never fall back to a default of 100 g") == true)
            let parts = try #require(messages[1]["content"] as? [[String: Any]])
            #expect((parts[0]["text"] as? String)?.hasSuffix(": rice with two eggs") == true)
            let imageURL = (parts[1]["image_url"] as? [String: Any])?["url"] as? String
            #expect(imageURL == "data:image/png;base64,\(Data(Self.photoBytes).base64EncodedString())")

            let format = try #require(body["response_format"] as? [String: Any])
            #expect(format["type"] as? String == "json_schema")
            let named = try #require(format["json_schema"] as? [String: Any])
            #expect(named["name"] as? String == "meal_items")
            #expect(named["strict"] as? Bool == true)
            let itemSchema = try #require(
                ((named["schema"] as? [String: Any])?["properties"] as? [String: Any])
                    .flatMap { ($0["items"] as? [String: Any])?["items"] as? [String: Any] })
            #expect(itemSchema["additionalProperties"] as? Bool == false)
            let required = Set(itemSchema["required"] as? [String] ?? [])
            let properties = Set((itemSchema["properties"] as? [String: Any])?.keys.map { $0 } ?? [])
            #expect(required == properties)
            #expect(required.isSuperset(of: ["name", "amount", "unit", "grams", "confidence", "calories_kcal", "sodium_mg"]))
        }
    }

    @Test("without an API key no Authorization header is sent, as local servers expect")
    func noKey() async throws {
        try await FakeVisionProvider.run([.items([MealPhotoItems.rice])]) { fake, url in
            let items = try await Self.client(url, apiKey: nil).recognise(photo, hint: nil, caller: Self.caller)
            #expect(items.map(\.name) == ["white rice"])
            #expect(fake.received.first?.authorization == nil)
        }
    }

    @Test("JSON wrapped in ```json fences, as some local models write it, is read")
    func fencedJSON() async throws {
        let json = String(decoding: try JSONSerialization.data(withJSONObject: ["items": [MealPhotoItems.rice, MealPhotoItems.egg]]), as: UTF8.self)
        try await FakeVisionProvider.run([.content("```json\n\(json)\n```")]) { _, url in
            let items = try await Self.client(url).recognise(photo, hint: nil, caller: Self.caller)
            #expect(items == MealPhotoItems.expected)
        }
    }

    @Test(
        "unreadable answers are malformed and not retried",
        arguments: [
            #"{"items": [{"name": "rice""#, "I can see a plate of rice and two eggs.", #"{"foods": []}"#,
            #"{"items": [{"name": "rice", "grams": "a cup"}]}"#,
        ])
    func unreadable(content: String) async throws {
        try await FakeVisionProvider.run([.content(content)]) { fake, url in
            let error = await Self.visionError { try await Self.client(url).recognise(photo, hint: nil, caller: Self.caller) }
            guard case .malformedAnswer = error else { Issue.record("expected malformedAnswer, got \(String(describing: error))"); return }
            #expect(fake.calls == 1)
        }
    }

    /// Answers that parse but describe no plausible meal, by name, with the words the rejection must use.
    static let absurdAnswers: [String: (reason: String, items: @Sendable () -> [[String: Any]])] = [
        "negative grams": ("negative", { [MealPhotoItems.rice(with: ["grams": -150])] }),
        "a 10 kg portion": ("is not a portion", { [MealPhotoItems.rice(with: ["grams": 10_000])] }),
        "confidence 2": ("outside 0...1", { [MealPhotoItems.rice(with: ["confidence": 2])] }),
        "calories far below the macros": ("does not match", { [MealPhotoItems.rice(with: ["calories_kcal": 20])] }),
        "calories far above the macros": ("does not match", { [MealPhotoItems.rice(with: ["calories_kcal": 900])] }),
        "5000 kcal in one item": (
            "more than 4000 kcal", { [MealPhotoItems.rice(with: ["grams": 2000, "calories_kcal": 5000, "carbs_g": 1250])] }
        ),
        "more macros than the portion weighs": ("g of macros in a 20 g portion", { [MealPhotoItems.rice(with: ["grams": 20])] }),
        "an empty name": ("no name", { [MealPhotoItems.egg, MealPhotoItems.rice(with: ["name": " "])] }),
        "no items": ("no food", { [] }),
        "more than maxItems items": ("21 items, more than 20", { Array(repeating: MealPhotoItems.rice, count: 21) }),
    ]

    @Test(
        "absurd answers are rejected whole as a photo without food (422 no_food_recognised), for the right reason, and not retried",
        arguments: absurdAnswers.keys.sorted())
    func absurd(label: String) async throws {
        let answer = try #require(Self.absurdAnswers[label])
        let items = answer.items()
        try await FakeVisionProvider.run([.items(items)]) { fake, url in
            let error = await Self.visionError { try await Self.client(url).recognise(photo, hint: nil, caller: Self.caller) }
            guard case .noFoodRecognised(let reason) = error else {
                Issue.record("expected noFoodRecognised, got \(String(describing: error))")
                return
            }
            #expect(reason.contains(answer.reason), "\(reason)")
            #expect(fake.calls == 1)
        }
    }

    @Test("a model that declines to describe the photo has recognised no food (422), and is not asked again")
    func refusal() async throws {
        let refusal = FakeVisionProvider.Reply(
            body: #"{"choices":[{"index":0,"message":{"role":"assistant","content":null,"refusal":"I can't help with that."}}]}"#)
        try await FakeVisionProvider.run([refusal]) { fake, url in
            let error = await Self.visionError { try await Self.client(url).recognise(photo, hint: nil, caller: Self.caller) }
            guard case .noFoodRecognised = error else { Issue.record("expected noFoodRecognised, got \(String(describing: error))"); return }
            #expect(error?.apiError.code == "no_food_recognised")
            #expect(fake.calls == 1)
        }
    }

    @Test("an alcoholic drink whose energy comes from alcohol is accepted")
    func alcohol() async throws {
        let wine = MealPhotoItems.rice(with: [
            "name": "red wine", "unit": "glass", "grams": 250, "calories_kcal": 213, "protein_g": 0.2, "carbs_g": 6.5,
            "fat_g": 0, "fiber_g": 0, "sugars_g": 1.5, "alcohol_g": 26,
        ])
        try await FakeVisionProvider.run([.items([wine])]) { _, url in
            let items = try await Self.client(url).recognise(photo, hint: nil, caller: Self.caller)
            #expect(items.first?.estimate.calories == 213)
        }
    }

    @Test("a label is asked with its own strict schema, every number of a column nullable, and its answer read back")
    func label() async throws {
        try await FakeVisionProvider.run([.content(NutritionLabelAnswerTests.yoghurt)]) { fake, url in
            let reading = try await Self.client(url).readLabel(photo, hint: nil, caller: Self.caller)
            #expect(reading.name == "Greek yoghurt" && reading.per100.calories == 60)
            let body = try #require(fake.received.first).json
            let messages = try #require(body["messages"] as? [[String: Any]])
            #expect((messages[0]["content"] as? String)?.contains("never fill in a typical value") == true)
            let named = try #require((body["response_format"] as? [String: Any])?["json_schema"] as? [String: Any])
            #expect(named["name"] as? String == "nutrition_label" && named["strict"] as? Bool == true)
            let schema = try #require(named["schema"] as? [String: Any])
            let properties = try #require(schema["properties"] as? [String: Any])
            #expect(Set(schema["required"] as? [String] ?? []) == Set(properties.keys) && schema["additionalProperties"] as? Bool == false)
            #expect((properties["is_nutrition_label"] as? [String: Any])?["type"] as? String == "boolean")
            let column = try #require(properties["per_100"] as? [String: Any])
            let energy = try #require((column["properties"] as? [String: Any])?["energy_kj"] as? [String: Any])
            #expect(energy["type"] as? [String] == ["number", "null"] && column["additionalProperties"] as? Bool == false)
        }
    }
}

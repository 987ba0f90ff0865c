import HTTPTypes
import Testing

@testable import MealsService

@Suite("Vision errors as API answers")
struct VisionErrorTests {
    @Test("an open circuit is a 503 whose Retry-After rounds the wait up to whole seconds")
    func circuitOpen() {
        let answer = VisionError.circuitOpen(retryAfter: .milliseconds(12_300)).apiError
        #expect(answer.status == .serviceUnavailable)
        #expect(answer.code == "vision_unavailable")
        #expect(answer.headers[.retryAfter] == "13")
    }

    @Test("a failed provider is a 503 to retry; an unusable answer is a 502 that does not leak the model's text")
    func failedAndMalformed() {
        let failed = VisionError.failed("the provider answered 500").apiError
        #expect(failed.status == .serviceUnavailable)
        #expect(failed.headers[.retryAfter] != nil)
        let malformed = VisionError.malformedAnswer("item 1 (\"rice\"): confidence 2.0 is outside 0...1").apiError
        #expect(malformed.status == .badGateway)
        #expect(malformed.code == "analysis_failed")
        #expect(!malformed.message.contains("rice"))
    }

    @Test("a photo without food is a 422 no_food_recognised, like a text without food, saying to retake it or send text")
    func noFood() {
        let error = VisionError.noFoodRecognised("item 1 (\"menu\"): 0 g is not a portion")
        let answer = error.apiError
        #expect(answer.status == .unprocessableContent && answer.code == "no_food_recognised")
        #expect(answer.message.contains("Retake") && answer.message.contains("text"))
        #expect(answer.details["suggestions"] == "retake_photo,send_text" && answer.details["image"] != nil)
        #expect(!answer.message.contains("menu") && answer.headers[.retryAfter] == nil)
        #expect(!error.saysProviderIsUnwell)
        #expect(VisionError.malformedAnswer("not JSON").saysProviderIsUnwell && VisionError.failed("500").saysProviderIsUnwell)
    }

    @Test("a refused key is a 502 without Retry-After (waiting does not fix it) that says where the user's own key is set")
    func credentialsRefused() {
        let answer = VisionError.credentialsRefused.apiError
        #expect(answer.status == .badGateway && answer.code == "vision_key_refused")
        #expect(answer.headers[.retryAfter] == nil && answer.message.contains("/api/users/vision-key"))
    }
}

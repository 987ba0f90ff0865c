import EventContracts
import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import ServiceDefaults
import Testing

/// Photo and text analysis through the gateway: limits, formats, the provider's failures, the caller's diet.
@Suite("Meal analysis through the gateway", .serialized, .enabled(if: TestEnvironment.isAvailable))
struct MealAnalysisTests {
    private func upload(_ stack: MealsStack, _ image: [UInt8], token: String) async throws -> TestResponse {
        try await stack.gateway.execute(
            uri: "/api/analyze", method: .post,
            headers: [.authorization: "Bearer \(token)", .contentType: "multipart/form-data; boundary=\(PhotoUpload.boundary)"],
            body: PhotoUpload.body(image))
    }

    @Test("a written meal becomes scored items from the food table, stored unconsumed")
    func textAnalysis() async throws {
        try await MealsStack.run { stack in
            let (token, _) = try await stack.signUp()
            let meal = try await stack.analyze("2 eggs, a slice of whole wheat toast and 200 ml orange juice", token: token)
            #expect(meal.items.count == 3)
            #expect(meal.items.allSatisfy { $0.source == "database" && $0.foodId != nil && $0.grams > 0 })
            #expect(meal.items.allSatisfy { !$0.reason.isEmpty && !$0.encouragement.isEmpty })
            let juice = try #require(meal.items.last)
            #expect(juice.unit == "ml" && juice.grams > 190 && juice.grams < 220, "200 ml of juice weighs about 200 g, got \(juice.grams)")
            let summed = meal.items.map(\.calories).reduce(0, +)
            #expect(abs(meal.totals.calories - summed) <= 1.5)
            #expect(!meal.isConsumed && !meal.edited && meal.version == 1 && meal.origin == "text")
            #expect(meal.dietScore.diet == "balanced" && (0...100).contains(meal.dietScore.score))
            #expect(meal.healthScore != nil)

            let unknown = try await stack.gateway.call(.post, "/api/analyze", json: #"{"text":"3 zxqvw"}"#, token: token)
            #expect(unknown.status == .unprocessableContent && unknown.errorCode == "no_food_recognised")
            let partly = try await stack.analyze("an apple and 2 zxqvw", token: token)
            #expect(partly.items.count == 1 && partly.unrecognised == ["zxqvw"])
        }
    }

    @Test("the caller's diet from their profile scores the analysis")
    func dietFromProfile() async throws {
        try await MealsStack.run { stack in
            let (token, _) = try await stack.signUp()
            let update = try await stack.gateway.call(.put, "/api/users/profile", json: #"{"dietPreference":"keto"}"#, token: token)
            #expect(update.status == .ok)
            let scoredForKeto = try await TestEnvironment.eventually(timeout: .seconds(30)) {
                let response = try await stack.gateway.call(.post, "/api/analyze", json: #"{"text":"a cup of white rice"}"#, token: token)
                return try response.decoded(MealAnswer.self).dietScore.diet == "keto"
            }
            #expect(scoredForKeto, "user.profile_updated did not reach the meals service")
            let rice = try await stack.analyze("a cup of white rice", token: token)
            #expect(rice.dietScore.band == "red", "rice is not keto: \(rice.dietScore.explanation)")
        }
    }

    @Test("uploads: over 10 MB is 413, a non-image is 415, a photo without a provider is 503, nothing stored")
    func uploadLimits() async throws {
        try await MealsStack.run { stack in
            let (token, userId) = try await stack.signUp()
            let tooLarge = try await upload(stack, [0xFF, 0xD8, 0xFF] + [UInt8](repeating: 1, count: 10 * 1024 * 1024), token: token)
            #expect(tooLarge.status == .contentTooLarge && tooLarge.errorCode == "payload_too_large")
            let gif = try await upload(stack, Array("GIF89a".utf8) + [UInt8](repeating: 0, count: 100), token: token)
            #expect(gif.status == .unsupportedMediaType && gif.errorCode == "unsupported_image_type")
            let plain = try await stack.gateway.execute(
                uri: "/api/analyze", method: .post, headers: [.authorization: "Bearer \(token)", .contentType: "text/plain"],
                body: ByteBuffer(string: "2 eggs"))
            #expect(plain.status == .unsupportedMediaType)
            let photo = try await upload(stack, PhotoUpload.png, token: token)
            #expect(photo.status == .serviceUnavailable && photo.errorCode == "vision_not_configured")
            #expect(photo.headers[.retryAfter] != nil)
            let base64 = Data(PhotoUpload.png).base64EncodedString()
            let json = try await stack.gateway.call(.post, "/api/analyze", json: #"{"image":"\#(base64)"}"#, token: token)
            #expect(json.status == .serviceUnavailable && json.errorCode == "vision_not_configured")
            let neither = try await stack.gateway.call(.post, "/api/analyze", json: #"{"mealType":"lunch"}"#, token: token)
            #expect(neither.status == .unprocessableContent)
            let badFields = try await stack.gateway.call(
                .post, "/api/analyze", json: #"{"text":"2 eggs","mealType":"brunch","captureKind":"x","eatenAt":"yesterday"}"#, token: token)
            let details = try badFields.decoded(ErrorBody.self).error.details
            #expect(badFields.status == .unprocessableContent && Set(details.keys) == ["mealType", "captureKind", "eatenAt"])
            #expect(try await stack.storedMeals(of: userId) == 0)
        }
    }

    @Test("photos go through the provider and are grounded in the table; a malformed or implausible answer stores nothing")
    func photoAnalysis() async throws {
        try await MealsStack.run(withVision: true) { stack in
            let vision = try #require(stack.vision)
            let (token, userId) = try await stack.signUp()
            vision.script(
                #"{"items":[{"name":"white rice","amount":1,"unit":"cup","grams":158,"confidence":0.9,"calories_kcal":205,"protein_g":4.3,"#
                    + #""carbs_g":44.5,"fat_g":0.4,"fiber_g":0.6,"sugars_g":0.1,"saturated_fat_g":0.1,"sodium_mg":2,"alcohol_g":0},"#
                    + #"{"name":"grandma's mystery stew","amount":1,"unit":"bowl","grams":300,"confidence":0.6,"calories_kcal":360,"protein_g":20,"#
                    + #""carbs_g":30,"fat_g":17,"fiber_g":5,"sugars_g":6,"saturated_fat_g":6,"sodium_mg":700,"alcohol_g":0}]}"#
            )
            let response = try await upload(stack, PhotoUpload.png, token: token)
            #expect(response.status == .created, "\(String(buffer: response.body))")
            let meal = try response.decoded(MealAnswer.self)
            #expect(meal.origin == "photo" && meal.mealType == "lunch" && meal.photoUrl != nil)
            #expect(meal.items.first?.source == "database" && meal.items.first?.foodId != nil)
            #expect(meal.items.last?.source == "estimate" && meal.items.last?.calories == 360)
            let photo = try await stack.gateway.call(.get, "/api/meals/\(meal.id.uuidString.lowercased())/photo", token: token)
            #expect(photo.status == .ok && Array(buffer: photo.body) == PhotoUpload.png && photo.headers[.contentType] == "image/png")
            let (stranger, _) = try await stack.signUp("stranger")
            let stolen = try await stack.gateway.call(.get, "/api/meals/\(meal.id.uuidString.lowercased())/photo", token: stranger)
            #expect(stolen.status == .notFound)

            vision.script("I think this is a sandwich, maybe?")
            let malformed = try await upload(stack, PhotoUpload.png, token: token)
            #expect(malformed.status == .badGateway && malformed.errorCode == "analysis_failed")
            vision.script(
                #"{"items":[{"name":"rice","amount":1,"unit":"cup","grams":-5,"confidence":0.9,"calories_kcal":205,"protein_g":4,"carbs_g":44,"#
                    + #""fat_g":0.4,"fiber_g":0.6,"sugars_g":0,"saturated_fat_g":0,"sodium_mg":2,"alcohol_g":0}]}"#
            )
            let absurd = try await upload(stack, PhotoUpload.png, token: token)
            #expect(absurd.status == .unprocessableContent && absurd.errorCode == "no_food_recognised")
            #expect(try await stack.storedMeals(of: userId) == 1, "failed analyses must store nothing")
        }
    }

    @Test("one user's stream of photos without food and of garbage answers never stops another user's photo")
    func oneUserCannotSwitchPhotosOff() async throws {
        try await MealsStack.run(withVision: true) { stack in
            let vision = try #require(stack.vision)
            let (mallory, malloryId) = try await stack.signUp("mallory")
            let (alice, aliceId) = try await stack.signUp("alice")
            let emptyPlate = #"{"items":[]}"#
            let menu =
                #"{"items":[{"name":"menu","amount":1,"unit":"page","grams":0,"confidence":0.2,"calories_kcal":0,"protein_g":0,"#
                + #""carbs_g":0,"fat_g":0,"fiber_g":0,"sugars_g":0,"saturated_fat_g":0,"sodium_mg":0,"alcohol_g":0}]}"#
            for content in [emptyPlate, menu] {
                vision.script(content)
                for _ in 1...6 {
                    let noFood = try await upload(stack, PhotoUpload.png, token: mallory)
                    #expect(noFood.status == .unprocessableContent && noFood.errorCode == "no_food_recognised")
                    #expect(try noFood.decoded(ErrorBody.self).error.details["suggestions"] == "retake_photo,send_text")
                }
            }
            #expect(vision.calls == 12, "every photo without food was asked about: none counted as a failure")

            var garbage: [(status: HTTPResponse.Status, code: String?, retryAfter: String?)] = []
            for round in 1...10 {
                vision.script(round.isMultiple(of: 2) ? #"{"foods":[]}"# : "I think this is a sandwich, maybe?")
                let answer = try await upload(stack, PhotoUpload.png, token: mallory)
                garbage.append((answer.status, answer.errorCode, answer.headers[.retryAfter]))
            }
            #expect(garbage.prefix(5).allSatisfy { $0.status == .badGateway && $0.code == "analysis_failed" })
            #expect(garbage.dropFirst(5).allSatisfy { $0.status == .serviceUnavailable && $0.code == "vision_unavailable" && $0.retryAfter != nil })
            #expect(vision.calls == 17, "after 5 garbage answers of their own, only this user's photos are held back")

            vision.script(
                #"{"items":[{"name":"white rice","amount":1,"unit":"cup","grams":158,"confidence":0.9,"calories_kcal":205,"protein_g":4.3,"#
                    + #""carbs_g":44.5,"fat_g":0.4,"fiber_g":0.6,"sugars_g":0.1,"saturated_fat_g":0.1,"sodium_mg":2,"alcohol_g":0}]}"#
            )
            let good = try await upload(stack, PhotoUpload.png, token: alice)
            #expect(good.status == .created, "\(String(buffer: good.body))")
            #expect(try good.decoded(MealAnswer.self).items.map(\.name) == ["white rice"])
            #expect(try await stack.storedMeals(of: aliceId) == 1)
            #expect(try await stack.storedMeals(of: malloryId) == 0)
        }
    }
}

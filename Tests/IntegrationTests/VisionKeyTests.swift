import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import PostgresNIO
import PostgresSupport
import ServiceDefaults
import TestSupport
import Testing

/// A user's own vision key through the gateway: stored sealed and never answered, used for that user's photos only
/// (with its own provider, key and model), refused for unusable values and for base URLs that name private hosts.
@Suite("The user's own vision key", .serialized)
struct VisionKeyTests {
    static let meal =
        #"{"items":[{"name":"white rice","amount":1,"unit":"cup","grams":158,"confidence":0.9,"calories_kcal":205,"protein_g":4.3,"#
        + #""carbs_g":44.5,"fat_g":0.4,"fiber_g":0.6,"sugars_g":0.1,"saturated_fat_g":0.1,"sodium_mg":2,"alcohol_g":0}]}"#

    static func analyzePhoto(token: String, stack: MealsStack) async throws -> TestResponse {
        try await stack.gateway.execute(
            uri: "/api/analyze", method: .post,
            headers: [.authorization: "Bearer \(token)", .contentType: "multipart/form-data; boundary=\(PhotoUpload.boundary)"],
            body: PhotoUpload.body(PhotoUpload.png))
    }

    @Test("a user's key is stored sealed, never answered, and used for their photos only; deleting it returns them to the server's provider")
    func ownKeyIsUsed() async throws {
        try await MealsStack.run(withVision: true) { stack in
            let server = try #require(stack.vision)
            server.script(Self.meal)
            try await ScriptedVisionProvider.runIfNeeded(true) { own in
                let (provider, port) = try #require(own)
                provider.script(Self.meal)
                let (token, userId) = try await stack.signUp("own-key")
                let (otherToken, _) = try await stack.signUp("server-key")
                let secret = "sk-own-\(UUID().uuidString)"
                provider.accept(key: secret)

                let none = try await stack.gateway.call(.get, "/api/users/vision-key", token: token)
                #expect(none.status == .ok && String(buffer: none.body).contains(#""configured":false"#))
                let stored = try await stack.gateway.call(
                    .put, "/api/users/vision-key",
                    json: #"{"apiKey":"\#(secret)","baseUrl":"http://127.0.0.1:\#(port)/v1/","model":"my-vision-model"}"#, token: token)
                #expect(stored.status == .ok, "\(String(buffer: stored.body))")
                let status = try await stack.gateway.call(.get, "/api/users/vision-key", token: token)
                struct KeyStatus: Decodable, Equatable {
                    var configured: Bool
                    var baseUrl: String?
                    var model: String?
                }
                for answer in [stored, status] {
                    #expect(
                        try answer.decoded(KeyStatus.self)
                            == KeyStatus(configured: true, baseUrl: "http://127.0.0.1:\(port)/v1", model: "my-vision-model"))
                    #expect(!String(buffer: answer.body).contains("sk-own"), "the key is never answered")
                }
                let sealed = try await stack.mealsDatabase.query(
                    """
                    SELECT count(*) FROM user_vision_keys WHERE user_id = \(userId)
                    AND position(convert_to(\(secret), 'UTF8') in sealed) = 0 AND key_id = 'itest'
                    """, logger: TestEnvironment.logger
                ).collect().first?.decode(Int.self)
                #expect(sealed == 1, "stored sealed, under the configured key's id")
                let published = try await stack.mealsDatabase.query(
                    "SELECT count(*) FROM outbox WHERE position(convert_to(\(secret), 'UTF8') in payload) > 0", logger: TestEnvironment.logger
                ).collect().first?.decode(Int.self)
                #expect(published == 0, "the key is never put in an event")

                #expect(try await Self.analyzePhoto(token: token, stack: stack).status == .created)
                #expect(provider.calls == 1 && server.calls == 0, "the user's photo goes to their own provider")
                #expect(provider.lastRequest.authorization == "Bearer \(secret)" && provider.lastRequest.model == "my-vision-model")
                #expect(try await Self.analyzePhoto(token: otherToken, stack: stack).status == .created)
                #expect(server.calls == 1 && provider.calls == 1, "another user's photo goes to the server's provider")

                provider.answer(status: 401)
                let refused = try await Self.analyzePhoto(token: token, stack: stack)
                #expect(refused.status == .badGateway && refused.errorCode == "vision_key_refused")
                #expect(!String(buffer: refused.body).contains(secret))

                #expect(try await stack.gateway.call(.delete, "/api/users/vision-key", token: token).status == .noContent)
                #expect(try await stack.gateway.call(.delete, "/api/users/vision-key", token: token).status == .noContent)
                #expect(try await Self.analyzePhoto(token: token, stack: stack).status == .created)
                #expect(server.calls == 2, "without a key the server's provider is used again")
            }
        }
    }

    @Test("unusable keys, models and base URLs are 422 naming the field; https only, and no private, loopback or metadata hosts")
    func refusals() async throws {
        try await MealsStack.run { stack in
            let (token, _) = try await stack.signUp()
            func put(_ json: String) async throws -> TestResponse {
                try await stack.gateway.call(.put, "/api/users/vision-key", json: json, token: token)
            }
            for json in [#"{}"#, #"{"apiKey":"short"}"#, #"{"apiKey":"has a space in it"}"#] {
                let answer = try await put(json)
                let fields = Set(try answer.decoded(ErrorBody.self).error.details.keys)
                #expect(answer.status == .unprocessableContent && fields == ["apiKey"], "\(json)")
            }
            let badModel = try await put(#"{"apiKey":"sk-valid-key-1","model":"<script>"}"#)
            #expect(Set(try badModel.decoded(ErrorBody.self).error.details.keys) == ["model"])
            for url in [
                "http://api.example.com/v1", "https://10.0.0.8/v1", "https://169.254.169.254/latest", "https://localhost/v1",
                "https://[::1]/v1", "https://[::ffff:127.0.0.1]/v1", "https://192.168.1.20:8443/v1", "https://user:pw@api.openai.com/v1",
                "https://api.openai.com/v1?x=1", "ftp://files.example.com", "not a url", "https://metadata.internal/v1",
            ] {
                let answer = try await put(#"{"apiKey":"sk-valid-key-1","baseUrl":"\#(url)"}"#)
                #expect(answer.status == .unprocessableContent, "\(url) answered \(answer.status)")
                #expect(Set(try answer.decoded(ErrorBody.self).error.details.keys) == ["baseUrl"], "\(url)")
            }
            let status = try await stack.gateway.call(.get, "/api/users/vision-key", token: token)
            #expect(String(buffer: status.body).contains(#""configured":false"#), "nothing refused was stored")
        }
    }
}

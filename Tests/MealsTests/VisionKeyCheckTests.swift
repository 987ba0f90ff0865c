import AsyncHTTPClient
import Foundation
import HTTPTypes
import Logging
import ServiceDefaults
import Testing

@testable import MealsService

@Suite("A user's vision key checked with GET /models before it is stored")
struct VisionKeyCheckTests {
    static func check(timeout: Duration = .seconds(5)) -> VisionKeyCheck {
        VisionKeyCheck(httpClient: .shared, timeout: timeout)
    }

    static func key(_ apiKey: String, _ baseURL: URL) -> UserVisionKey {
        UserVisionKey(apiKey: apiKey, baseURL: baseURL, model: "gpt-4o-mini")
    }

    /// The error the check threw, or nil when the key was accepted.
    static func refusal(_ check: VisionKeyCheck, _ key: UserVisionKey) async -> APIError? {
        do {
            try await check.verify(key, logger: Logger(label: "key-check-test"))
            return nil
        } catch {
            return error as? APIError
        }
    }

    @Test("an accepted key passes with one GET /models carrying it as bearer token; an unknown one is 422 vision_key_invalid")
    func acceptedAndRefused() async throws {
        try await FakeVisionProvider.run([.content("{}")], acceptedKeys: ["sk-good-key"]) { fake, url in
            #expect(await Self.refusal(Self.check(), Self.key("sk-good-key", url)) == nil)
            #expect(fake.received.map(\.path) == ["/v1/models"] && fake.received.first?.authorization == "Bearer sk-good-key")
            let refused = try #require(await Self.refusal(Self.check(), Self.key("sk-wrong-key", url)))
            #expect(refused.status == .unprocessableContent && refused.code == "vision_key_invalid" && refused.details["apiKey"] != nil)
            #expect(!refused.message.contains("sk-wrong-key"))
        }
    }

    @Test("5xx, 429, no answer in time and no connection are 502 vision_provider_unreachable; 404 says the base URL is unusable")
    func providerTrouble() async throws {
        try await FakeVisionProvider.run([.content("{}")], acceptedKeys: ["sk-good-key"]) { fake, url in
            for status in [HTTPResponse.Status.internalServerError, .serviceUnavailable, .tooManyRequests] {
                fake.scriptModels(.status(status))
                let error = await Self.refusal(Self.check(), Self.key("sk-good-key", url))
                #expect(error?.status == .badGateway && error?.code == "vision_provider_unreachable", "\(status)")
            }
            fake.scriptModels(Reply(status: .ok, body: "{}", delay: .seconds(2)))
            let slow = await Self.refusal(Self.check(timeout: .milliseconds(200)), Self.key("sk-good-key", url))
            #expect(slow?.code == "vision_provider_unreachable")
            fake.scriptModels(nil)
            let wrongRoot = await Self.refusal(Self.check(), Self.key("sk-good-key", url.deletingLastPathComponent().appendingPathComponent("v9")))
            #expect(wrongRoot?.status == .unprocessableContent && wrongRoot?.code == "vision_base_url_unusable")
        }
        let closed = await Self.refusal(Self.check(timeout: .seconds(1)), Self.key("sk-good-key", URL(string: "http://127.0.0.1:1/v1")!))
        #expect(closed?.status == .badGateway && closed?.code == "vision_provider_unreachable")
    }

    typealias Reply = FakeVisionProvider.Reply
}

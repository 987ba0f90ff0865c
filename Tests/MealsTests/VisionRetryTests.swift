import AsyncHTTPClient
import Foundation
import HTTPTypes
import Testing

@testable import MealsService

@Suite("Vision client retries and time limits")
struct VisionRetryTests {
    let photo = PhotoUpload(bytes: VisionClientTests.photoBytes, format: .png)
    let caller = VisionClientTests.caller

    @Test("a 500 and then a good answer succeeds on the second attempt")
    func retriesServerError() async throws {
        try await FakeVisionProvider.run([.status(.internalServerError), .items([MealPhotoItems.rice])]) { fake, url in
            let items = try await VisionClientTests.client(url).recognise(photo, hint: nil, caller: caller)
            #expect(items.map(\.name) == ["white rice"])
            #expect(fake.calls == 2)
        }
    }

    @Test("a 429 with a short Retry-After is retried; 503 three times fails after three calls")
    func rateLimitedThenUnavailable() async throws {
        try await FakeVisionProvider.run([.status(.tooManyRequests, headers: [.retryAfter: "0"]), .items([MealPhotoItems.egg])]) { fake, url in
            let items = try await VisionClientTests.client(url).recognise(photo, hint: nil, caller: caller)
            #expect(items.map(\.name) == ["fried egg"])
            #expect(fake.calls == 2)
        }
        try await FakeVisionProvider.run([.status(.serviceUnavailable)]) { fake, url in
            let error = await VisionClientTests.visionError { try await VisionClientTests.client(url).recognise(photo, hint: nil, caller: caller) }
            guard case .failed = error else { Issue.record("expected failed, got \(String(describing: error))"); return }
            #expect(fake.calls == 3)
        }
    }

    @Test("a 429 asking for a long wait fails at once instead of keeping the user waiting")
    func longRetryAfter() async throws {
        try await FakeVisionProvider.run([.status(.tooManyRequests, headers: [.retryAfter: "60"])]) { fake, url in
            let error = await VisionClientTests.visionError { try await VisionClientTests.client(url).recognise(photo, hint: nil, caller: caller) }
            guard case .failed = error else { Issue.record("expected failed, got \(String(describing: error))"); return }
            #expect(fake.calls == 1)
        }
    }

    @Test("4xx answers other than 429 are not retried; 401 and 403 say the key was refused", arguments: [400, 401, 403, 404])
    func clientErrorsAreFinal(code: Int) async throws {
        try await FakeVisionProvider.run([.status(HTTPResponse.Status(code: code)), .items([MealPhotoItems.rice])]) { fake, url in
            let error = await VisionClientTests.visionError { try await VisionClientTests.client(url).recognise(photo, hint: nil, caller: caller) }
            switch (code, error) {
            case (401, .credentialsRefused?), (403, .credentialsRefused?): break
            case (400, .failed?), (404, .failed?): break
            default: Issue.record("\(code): unexpected \(String(describing: error))")
            }
            #expect(fake.calls == 1)
        }
    }

    @Test("a provider slower than the time limit fails after every attempt timed out")
    func timeout() async throws {
        // Limits of a second, not milliseconds: on a loaded machine (the test command runs suites in parallel) a
        // request can take a few hundred milliseconds to reach the provider, and would then time out uncounted.
        let slow = FakeVisionProvider.Reply(body: "{}", delay: .seconds(3))
        try await FakeVisionProvider.run([slow]) { fake, url in
            let client = VisionClientTests.client(url, timeout: .seconds(1), attempts: 3)
            let error = await VisionClientTests.visionError { try await client.recognise(photo, hint: nil, caller: caller) }
            guard case .failed(let reason) = error else { Issue.record("expected failed, got \(String(describing: error))"); return }
            #expect(reason.contains("no answer within"))
            #expect(fake.calls == 3)
        }
    }

    @Test("retries stop when the total time budget is spent, so the user is answered before the gateway gives up")
    func totalBudget() async throws {
        // Three attempts of 2 s do not fit in 3.2 s: the budget ends the retries before the third. How many began
        // depends on the machine's load (a loaded one spent the whole budget on the first), so only that is asserted.
        let slow = FakeVisionProvider.Reply(body: "{}", delay: .seconds(4))
        try await FakeVisionProvider.run([slow]) { fake, url in
            let client = VisionClientTests.client(url, timeout: .seconds(2), total: .milliseconds(3200), attempts: 3)
            let error = await VisionClientTests.visionError { try await client.recognise(photo, hint: nil, caller: caller) }
            guard case .failed(let reason) = error else { Issue.record("expected failed, got \(String(describing: error))"); return }
            #expect(reason.hasSuffix("out of time)"), "\(reason)")
            #expect((1...2).contains(fake.calls), "the budget did not stop the retries: \(fake.calls) attempts")
        }
    }

    // The HTTP client keeps retrying a refused connection until the attempt's deadline, so this takes up to 2 × 300 ms; on
    // a loaded machine the first attempt may spend the whole budget, so the count of attempts is not asserted.
    @Test("an unreachable provider is a failure, not a hang")
    func unreachable() async throws {
        let client = VisionClientTests.client(URL(string: "http://127.0.0.1:1/v1")!, timeout: .milliseconds(300), attempts: 2)
        let error = await VisionClientTests.visionError { try await client.recognise(photo, hint: nil, caller: caller) }
        guard case .failed(let reason) = error else { Issue.record("expected failed, got \(String(describing: error))"); return }
        #expect(reason.contains("attempt"), "\(reason)")
    }

    @Test("an answer over 1 MB is not read")
    func oversizedAnswer() async throws {
        let huge = FakeVisionProvider.Reply.content(String(repeating: " ", count: OpenAICompatibleVisionClient.maxAnswerBytes))
        try await FakeVisionProvider.run([huge]) { fake, url in
            let error = await VisionClientTests.visionError { try await VisionClientTests.client(url).recognise(photo, hint: nil, caller: caller) }
            guard case .malformedAnswer = error else { Issue.record("expected malformedAnswer, got \(String(describing: error))"); return }
            #expect(fake.calls == 1)
        }
    }
}

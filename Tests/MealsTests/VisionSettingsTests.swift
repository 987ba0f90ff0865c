import Configuration
import Foundation
import ServiceDefaults
import TestSupport
import Testing

@testable import MealsService

@Suite("Vision settings from configuration")
struct VisionSettingsTests {
    @Test("without a base URL photo analysis is off, and the client is told 503 vision_not_configured")
    func unset() throws {
        #expect(try VisionSettings.read(config: ConfigReaderFactory.make([:])) == nil)
        #expect(try VisionSettings.read(config: ConfigReaderFactory.make(["meals.vision.base.url": ""])) == nil)
        #expect(VisionError.notConfigured.status == .serviceUnavailable)
        #expect(VisionError.notConfigured.code == "vision_not_configured")
    }

    @Test("a base URL alone gives the documented defaults")
    func defaults() throws {
        let settings = try #require(
            try VisionSettings.read(config: ConfigReaderFactory.make(["meals.vision.base.url": "https://api.openai.com/v1/"])))
        #expect(settings.baseURL.absoluteString == "https://api.openai.com/v1")
        #expect(settings.apiKey == nil)
        #expect(settings.model == "gpt-4o-mini")
        #expect(settings.requestTimeout == .seconds(20))
        #expect(settings.totalTimeout == .seconds(28))
        #expect(settings.maxAttempts == 3)
        #expect(settings.initialBackoff == .milliseconds(500))
        #expect(settings.failureThreshold == 5)
        #expect(settings.breakerUsers == 3)
        #expect(settings.breakerWindow == .seconds(60))
        #expect(settings.userFailureThreshold == 5)
        #expect(settings.openDuration == .seconds(30))
        #expect(settings.maxItems == 20)
    }

    @Test("every key is read")
    func everyKey() throws {
        let config = ConfigReaderFactory.make([
            "meals.vision.base.url": "http://127.0.0.1:11434/v1", "meals.vision.api.key": "sk-local",
            "meals.vision.model": "llava:13b", "meals.vision.timeout.seconds": "45", "meals.vision.total.timeout.seconds": "90",
            "meals.vision.max.attempts": "2",
            "meals.vision.backoff.milliseconds": "250", "meals.vision.breaker.failures": "8",
            "meals.vision.breaker.open.seconds": "60", "meals.vision.max.items": "12", "meals.vision.breaker.users": "2",
            "meals.vision.breaker.window.seconds": "120", "meals.vision.breaker.user.failures": "4",
        ])
        let settings = try #require(try VisionSettings.read(config: config))
        #expect(settings.baseURL.absoluteString == "http://127.0.0.1:11434/v1")
        #expect(settings.apiKey == "sk-local")
        #expect(settings.model == "llava:13b")
        #expect(settings.requestTimeout == .seconds(45))
        #expect(settings.totalTimeout == .seconds(90))
        #expect(settings.maxAttempts == 2)
        #expect(settings.initialBackoff == .milliseconds(250))
        #expect(settings.failureThreshold == 8)
        #expect(settings.breakerUsers == 2)
        #expect(settings.breakerWindow == .seconds(120))
        #expect(settings.userFailureThreshold == 4)
        #expect(settings.openDuration == .seconds(60))
        #expect(settings.maxItems == 12)
    }

    @Test(
        "unusable values stop the start with the variable's name",
        arguments: [
            ("meals.vision.base.url", "ftp://files.example.com/v1", "MEALS_VISION_BASE_URL"),
            ("meals.vision.base.url", "api.openai.com/v1", "MEALS_VISION_BASE_URL"),
            ("meals.vision.max.attempts", "0", "MEALS_VISION_MAX_ATTEMPTS"),
            ("meals.vision.timeout.seconds", "soon", "MEALS_VISION_TIMEOUT_SECONDS"),
            ("meals.vision.breaker.failures", "-1", "MEALS_VISION_BREAKER_FAILURES"),
            ("meals.vision.breaker.users", "0", "MEALS_VISION_BREAKER_USERS"),
            ("meals.vision.breaker.window.seconds", "0", "MEALS_VISION_BREAKER_WINDOW_SECONDS"),
            ("meals.vision.breaker.user.failures", "many", "MEALS_VISION_BREAKER_USER_FAILURES"),
            ("meals.vision.max.items", "1000", "MEALS_VISION_MAX_ITEMS"),
        ])
    func invalid(key: String, value: String, variable: String) {
        var values = ["meals.vision.base.url": "https://api.openai.com/v1"]
        values[key] = value
        do {
            _ = try VisionSettings.read(config: ConfigReaderFactory.make(values))
            Issue.record("\(key)=\(value) was accepted")
        } catch {
            #expect("\(error)".contains(variable), "\(error)")
        }
    }
}

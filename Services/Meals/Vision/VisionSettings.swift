import Configuration
import Foundation
import ServiceDefaults

/// Settings of the vision provider; nil from `read(config:)` when `meals.vision.base.url` (`MEALS_VISION_BASE_URL`)
/// is unset, and photo analysis then answers 503 `vision_not_configured`.
struct VisionSettings: Sendable {
    /// The OpenAI-compatible API root, such as `https://api.openai.com/v1`, Gemini's
    /// `https://generativelanguage.googleapis.com/v1beta/openai`, or Ollama's `http://127.0.0.1:11434/v1`
    /// (`MEALS_VISION_BASE_URL`, no default), without a trailing slash; `/chat/completions` is appended.
    var baseURL: URL
    /// Sent as `Authorization: Bearer` when set (`MEALS_VISION_API_KEY`, none by default: local servers need none).
    var apiKey: String?
    /// The vision-capable model (`MEALS_VISION_MODEL`, default `gpt-4o-mini`).
    var model: String
    /// Limit of one attempt, answer body included (`MEALS_VISION_TIMEOUT_SECONDS`, default 20, 1...300).
    var requestTimeout: Duration
    /// Limit of all attempts and the waits between them together, kept under the gateway's 30 s upstream timeout so
    /// the user gets this service's answer rather than the gateway's 504 (`MEALS_VISION_TOTAL_TIMEOUT_SECONDS`,
    /// default 28, 1...600). A retry that would start past it is not made, and the last attempt gets what is left.
    var totalTimeout: Duration
    /// Attempts per photo, the first included (`MEALS_VISION_MAX_ATTEMPTS`, default 3, 1...10).
    var maxAttempts: Int
    /// Wait before the first retry, doubled for each further one, with jitter (`MEALS_VISION_BACKOFF_MILLISECONDS`,
    /// default 500, 0...60000).
    var initialBackoff: Duration
    /// Failed photos, with no success between them and each within `breakerWindow`, that open the server's circuit
    /// once they come from `breakerUsers` distinct users (`MEALS_VISION_BREAKER_FAILURES`, default 5, 1...1000).
    /// Only failures that say the provider is unwell count: no connection, timeouts, 429 and 5xx after the retries,
    /// answers that are not JSON of the asked shape, a refused key. A photo without food is a 422 and counts as a success.
    var failureThreshold: Int
    /// Distinct users whose photos must have failed before the server's circuit opens, so that no one user's photos
    /// can switch analysis off for the others (`MEALS_VISION_BREAKER_USERS`, default 3, 1...100; 1 is the breaker
    /// of consecutive failures of old).
    var breakerUsers: Int
    /// How far back failures count towards opening the server's circuit (`MEALS_VISION_BREAKER_WINDOW_SECONDS`,
    /// default 60, 1...3600), and how long one user's failures are remembered.
    var breakerWindow: Duration
    /// One user's failed photos in a row that hold back only that user's photos for `openDuration` (503
    /// `vision_unavailable` with `Retry-After`) (`MEALS_VISION_BREAKER_USER_FAILURES`, default 5, 1...1000). For a
    /// user's own key this is the whole breaker: its client only ever serves that user.
    var userFailureThreshold: Int
    /// How long an open circuit (the server's or one user's) refuses photos before one trial goes through (`MEALS_VISION_BREAKER_OPEN_SECONDS`,
    /// default 30, 1...3600).
    var openDuration: Duration
    /// Most items accepted from one answer; more is taken as a confused model (`MEALS_VISION_MAX_ITEMS`, default 20, 1...100).
    var maxItems: Int

    /// Settings with the documented defaults wherever none is given.
    init(
        baseURL: URL, apiKey: String? = nil, model: String = "gpt-4o-mini", requestTimeout: Duration = .seconds(20),
        totalTimeout: Duration = .seconds(28), maxAttempts: Int = 3, initialBackoff: Duration = .milliseconds(500),
        failureThreshold: Int = 5, breakerUsers: Int = 3, breakerWindow: Duration = .seconds(60), userFailureThreshold: Int = 5,
        openDuration: Duration = .seconds(30), maxItems: Int = 20
    ) {
        self.baseURL = baseURL
        self.apiKey = apiKey
        self.model = model
        self.requestTimeout = requestTimeout
        self.totalTimeout = totalTimeout
        self.maxAttempts = maxAttempts
        self.initialBackoff = initialBackoff
        self.failureThreshold = failureThreshold
        self.breakerUsers = breakerUsers
        self.breakerWindow = breakerWindow
        self.userFailureThreshold = userFailureThreshold
        self.openDuration = openDuration
        self.maxItems = maxItems
    }

    /// The settings from `config`, nil when no base URL is set; throws `ConfigurationError` for unusable values.
    static func read(config: ConfigReader) throws -> VisionSettings? {
        guard let base = config.string(forKey: "meals.vision.base.url"), !base.isEmpty else { return nil }
        let trimmed = base.hasSuffix("/") ? String(base.dropLast()) : base
        guard let url = URL(string: trimmed), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
            url.host?.isEmpty == false
        else {
            throw ConfigurationError.invalid("MEALS_VISION_BASE_URL", reason: "must be an http or https URL such as https://api.openai.com/v1")
        }
        let apiKey = config.string(forKey: "meals.vision.api.key", isSecret: true)
        let model = config.string(forKey: "meals.vision.model", default: "gpt-4o-mini")
        guard !model.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw ConfigurationError.invalid("MEALS_VISION_MODEL", reason: "must name a model")
        }
        return VisionSettings(
            baseURL: url, apiKey: apiKey?.isEmpty == false ? apiKey : nil, model: model,
            requestTimeout: .seconds(try config.integer("meals.vision.timeout.seconds", default: 20, in: 1...300)),
            totalTimeout: .seconds(try config.integer("meals.vision.total.timeout.seconds", default: 28, in: 1...600)),
            maxAttempts: try config.integer("meals.vision.max.attempts", default: 3, in: 1...10),
            initialBackoff: .milliseconds(try config.integer("meals.vision.backoff.milliseconds", default: 500, in: 0...60_000)),
            failureThreshold: try config.integer("meals.vision.breaker.failures", default: 5, in: 1...1000),
            breakerUsers: try config.integer("meals.vision.breaker.users", default: 3, in: 1...100),
            breakerWindow: .seconds(try config.integer("meals.vision.breaker.window.seconds", default: 60, in: 1...3600)),
            userFailureThreshold: try config.integer("meals.vision.breaker.user.failures", default: 5, in: 1...1000),
            openDuration: .seconds(try config.integer("meals.vision.breaker.open.seconds", default: 30, in: 1...3600)),
            maxItems: try config.integer("meals.vision.max.items", default: 20, in: 1...100))
    }
}

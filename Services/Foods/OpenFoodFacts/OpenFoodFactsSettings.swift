import Configuration
import Foundation
import ServiceDefaults

/// How the foods service asks Open Food Facts for products it does not have (`FOODS_OFF_*`). The defaults keep within
/// OFF's published limits (100 product reads a minute per client) and its terms (a `User-Agent` naming the app and a
/// contact).
struct OpenFoodFactsSettings: Sendable {
    /// Whether barcodes we lack are looked up at all (`FOODS_OFF_ENABLED`, default true).
    var enabled: Bool
    /// The API's root (`FOODS_OFF_BASE_URL`, default `https://world.openfoodfacts.org`); `/api/v2/product/<code>` is appended.
    var baseURL: URL
    /// Sent with every request (`FOODS_OFF_USER_AGENT`, default `NutritionAI/1.0 (ops@nutritionai.example)`): OFF asks
    /// for `AppName/Version (contact)`, and operators should put their own contact here.
    var userAgent: String
    /// Requests this process may send a minute; a look-up past it answers 503 at once instead of asking
    /// (`FOODS_OFF_REQUESTS_PER_MINUTE`, default 90, 1...6000).
    var requestsPerMinute: Int
    /// Limit of one look-up, its retry included, so the client's answer comes within 2 s even when OFF is slow
    /// (`FOODS_OFF_TIMEOUT_SECONDS`, default 1.8, 0.1...30).
    var totalTimeout: Duration
    /// Limit of one attempt, answer included (`FOODS_OFF_ATTEMPT_TIMEOUT_SECONDS`, default 0.8, 0.1...30).
    var attemptTimeout: Duration
    /// Failed look-ups in a row (no connection, timeouts, 429, 5xx, answers that are not OFF's JSON) that open the
    /// breaker (`FOODS_OFF_BREAKER_FAILURES`, default 5, 1...1000).
    var breakerFailures: Int
    /// How long an open breaker answers 503 without asking before one trial goes through (`FOODS_OFF_BREAKER_OPEN_SECONDS`, default 30, 1...3600).
    var breakerOpen: Duration
    /// Age after which a stored OFF product is fetched again when looked up (`FOODS_OFF_REFRESH_AFTER_HOURS`, default 168, 1...8760).
    var refreshAfter: TimeInterval
    /// How long "OFF has no such product" is believed before OFF is asked again (`FOODS_OFF_MISS_TTL_HOURS`, default 24, 0...8760).
    var missTTL: TimeInterval

    static let defaultBaseURL = URL(string: "https://world.openfoodfacts.org")!
    static let defaultUserAgent = "NutritionAI/1.0 (ops@nutritionai.example)"

    init(
        enabled: Bool = true, baseURL: URL = Self.defaultBaseURL, userAgent: String = Self.defaultUserAgent, requestsPerMinute: Int = 90,
        totalTimeout: Duration = .milliseconds(1800), attemptTimeout: Duration = .milliseconds(800), breakerFailures: Int = 5,
        breakerOpen: Duration = .seconds(30), refreshAfter: TimeInterval = 168 * 3600, missTTL: TimeInterval = 24 * 3600
    ) {
        self.enabled = enabled
        self.baseURL = baseURL
        self.userAgent = userAgent
        self.requestsPerMinute = requestsPerMinute
        self.totalTimeout = totalTimeout
        self.attemptTimeout = attemptTimeout
        self.breakerFailures = breakerFailures
        self.breakerOpen = breakerOpen
        self.refreshAfter = refreshAfter
        self.missTTL = missTTL
    }

    init(config: ConfigReader) throws {
        let base = config.string(forKey: "foods.off.base.url", default: Self.defaultBaseURL.absoluteString)
        let trimmed = base.hasSuffix("/") ? String(base.dropLast()) : base
        guard let url = URL(string: trimmed), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
            url.host?.isEmpty == false
        else { throw ConfigurationError.invalid("FOODS_OFF_BASE_URL", reason: "must be an http or https URL such as \(Self.defaultBaseURL)") }
        let userAgent = config.string(forKey: "foods.off.user.agent", default: Self.defaultUserAgent)
        guard userAgent.range(of: #"^[^\s/]+/[^\s/]+ \(.+\)$"#, options: .regularExpression) != nil else {
            throw ConfigurationError.invalid("FOODS_OFF_USER_AGENT", reason: "must read AppName/Version (contact), as Open Food Facts asks")
        }
        self.init(
            enabled: config.bool(forKey: "foods.off.enabled", default: true), baseURL: url, userAgent: userAgent,
            requestsPerMinute: try config.integer("foods.off.requests.per.minute", default: 90, in: 1...6000),
            totalTimeout: .seconds(try config.number("foods.off.timeout.seconds", default: 1.8, in: 0.1...30)),
            attemptTimeout: .seconds(try config.number("foods.off.attempt.timeout.seconds", default: 0.8, in: 0.1...30)),
            breakerFailures: try config.integer("foods.off.breaker.failures", default: 5, in: 1...1000),
            breakerOpen: .seconds(try config.integer("foods.off.breaker.open.seconds", default: 30, in: 1...3600)),
            refreshAfter: TimeInterval(try config.integer("foods.off.refresh.after.hours", default: 168, in: 1...8760) * 3600),
            missTTL: TimeInterval(try config.integer("foods.off.miss.ttl.hours", default: 24, in: 0...8760) * 3600))
    }
}

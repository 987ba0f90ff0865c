import HTTPTypes
import ServiceDefaults

/// CORS for the configured web origins (`WebOrigins`): a preflight from one of them is answered 204 with the methods
/// and headers the API takes, credentials allowed (cookie sessions); a preflight from any other origin is 403
/// `origin_not_allowed`. Every answer to an allowed origin, error answers included (so a page can read why it was
/// refused), carries `Access-Control-Allow-Origin` with it (never `*`), `Access-Control-Allow-Credentials` and the
/// headers a page may read; while any origin is configured every answer says `Vary: Origin`.
struct CORSRules: Sendable {
    let origins: WebOrigins

    static let allowedMethods = "GET, POST, PUT, PATCH, DELETE"
    static let allowedHeaders =
        "Authorization, Content-Type, If-Match, If-None-Match, Idempotency-Key, X-CSRF-Token, X-Session-Transport, X-Request-Id"
    static let exposedHeaders = "ETag, Location, RateLimit, RateLimit-Policy, Retry-After, X-Request-Id, Idempotent-Replayed"

    /// Whether `request` is a preflight (`OPTIONS` with `Access-Control-Request-Method`).
    static func isPreflight(_ request: HTTPRequest) -> Bool {
        request.method == .options && request.headerFields.has(.accessControlRequestMethod)
    }

    /// The answer to a preflight: 204 with what the API allows, or the 403 refusal of an origin not configured.
    func preflight(_ request: HTTPRequest) -> Result<HTTPFields, APIError> {
        guard let origin = request.headerFields.value(of: .origin), origins.allows(origin) else {
            return .failure(APIError(.forbidden, code: "origin_not_allowed", message: "This origin may not call the API from a browser."))
        }
        var headers = Self.allowing(origin)
        headers[.accessControlAllowMethods] = Self.allowedMethods
        headers[.accessControlAllowHeaders] = Self.allowedHeaders
        headers[.accessControlMaxAge] = "600"
        return .success(headers)
    }

    /// The headers every answer to `request` gets.
    func answerHeaders(for request: HTTPRequest) -> HTTPFields {
        if let origin = request.headerFields.value(of: .origin), origins.allows(origin) {
            var headers = Self.allowing(origin)
            headers[.accessControlExposeHeaders] = Self.exposedHeaders
            return headers
        }
        // Answers differ by origin: a shared cache must not serve this one to an allowed origin.
        return origins.isEmpty ? [:] : [.vary: "Origin"]
    }

    private static func allowing(_ origin: String) -> HTTPFields {
        [.accessControlAllowOrigin: origin, .accessControlAllowCredentials: "true", .vary: "Origin"]
    }
}

import HTTPTypes
import Hummingbird
import ServiceDefaults

/// CORS for the configured web origins (`WebOrigins`): a preflight from one of them is answered 204 with the methods
/// and headers the API takes, credentials allowed (cookie sessions); a preflight from any other origin is 403
/// `origin_not_allowed`. Answers to an allowed origin carry `Access-Control-Allow-Origin` with it (never `*`),
/// `Access-Control-Allow-Credentials` and the headers a page may read. Runs before everything else, error answers
/// included, so a page can read why it was refused.
struct CORSMiddleware: RouterMiddleware {
    typealias Context = GatewayRequestContext
    let origins: WebOrigins

    static let allowedMethods = "GET, POST, PUT, PATCH, DELETE"
    static let allowedHeaders =
        "Authorization, Content-Type, If-Match, If-None-Match, Idempotency-Key, X-CSRF-Token, X-Session-Transport, X-Request-Id"
    static let exposedHeaders = "ETag, Location, RateLimit, RateLimit-Policy, Retry-After, X-Request-Id, Idempotent-Replayed"

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let origin = request.headers[.origin]
        if request.method == .options, request.headers[.accessControlRequestMethod] != nil {
            guard let origin, origins.allows(origin) else {
                return ErrorBody(
                    code: "origin_not_allowed", message: "This origin may not call the API from a browser.", requestId: context.requestId
                )
                .response(status: .forbidden)
            }
            var headers = Self.allowing(origin)
            headers[.accessControlAllowMethods] = Self.allowedMethods
            headers[.accessControlAllowHeaders] = Self.allowedHeaders
            headers[.accessControlMaxAge] = "600"
            return Response(status: .noContent, headers: headers)
        }
        var response = try await next(request, context)
        if let origin, origins.allows(origin) {
            response.headers.append(contentsOf: Self.allowing(origin))
            response.headers[.accessControlExposeHeaders] = Self.exposedHeaders
        } else if !origins.isEmpty {
            // Answers differ by origin: a shared cache must not serve this one to an allowed origin.
            response.headers[.vary] = "Origin"
        }
        return response
    }

    private static func allowing(_ origin: String) -> HTTPFields {
        [.accessControlAllowOrigin: origin, .accessControlAllowCredentials: "true", .vary: "Origin"]
    }
}

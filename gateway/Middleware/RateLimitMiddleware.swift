import HTTPTypes
import Hummingbird
import ServiceDefaults

/// The rate limits of requests the router handles (see `RateLimitGate`): a refusal is thrown as its 429, an admitted
/// answer gets the policy's headers.
struct RateLimitMiddleware: RouterMiddleware {
    let gate: RateLimitGate

    func handle(
        _ request: Request, context: GatewayRequestContext, next: (Request, GatewayRequestContext) async throws -> Response
    ) async throws -> Response {
        guard let route = context.route else { return try await next(request, context) }
        switch await gate.admit(route, caller: context.caller, clientAddress: context.clientAddress) {
        case .refused(let error):
            throw error
        case .admitted(let headers):
            var response = try await next(request, context)
            response.headers.append(contentsOf: headers)
            return response
        }
    }
}

extension HTTPField.Name {
    static let rateLimitPolicy = HTTPField.Name("RateLimit-Policy")!
    static let rateLimit = HTTPField.Name("RateLimit")!
    static let xForwardedFor = HTTPField.Name("X-Forwarded-For")!
}

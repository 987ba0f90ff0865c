import Hummingbird

/// Finds the route table entry for the request path once, for the authentication, rate-limit and proxy steps.
/// Paths that match no route pass through untouched to the gateway's own routes.
struct RouteMatchMiddleware: RouterMiddleware {
    let routes: RouteTable

    func handle(
        _ request: Request, context: GatewayRequestContext, next: (Request, GatewayRequestContext) async throws -> Response
    ) async throws -> Response {
        var context = context
        context.route = routes.route(for: Substring(request.uri.path))
        return try await next(request, context)
    }
}

import Hummingbird

/// Finds the route table entry for the request path once, and decides the client's address, for the
/// authentication, rate-limit and proxy steps. Paths that match no route pass through to the gateway's own routes.
struct RouteMatchMiddleware: RouterMiddleware {
    let routes: RouteTable
    let addresses: ClientAddressResolver

    func handle(
        _ request: Request, context: GatewayRequestContext, next: (Request, GatewayRequestContext) async throws -> Response
    ) async throws -> Response {
        var context = context
        context.route = routes.route(for: Substring(request.uri.path))
        if context.route != nil {
            context.clientAddress = addresses.clientAddress(
                peer: context.remoteAddress?.ipAddress, forwardedFor: request.headers[values: .xForwardedFor])
        }
        return try await next(request, context)
    }
}

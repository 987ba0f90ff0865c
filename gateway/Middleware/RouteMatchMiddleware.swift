import Hummingbird

/// Finds the route table entry for the request path once, and decides the client's address, for the
/// authentication, rate-limit and proxy steps. Paths that match no route pass through to the gateway's own routes.
/// A matched route's prefix becomes the request's endpoint path, the `http.route` of the request metrics (the trie
/// router sets it only for the gateway's own routes; without this every proxied request counted as `Unknown`).
struct RouteMatchMiddleware: RouterMiddleware {
    let routes: RouteTable
    let addresses: ClientAddressResolver

    func handle(
        _ request: Request, context: GatewayRequestContext, next: (Request, GatewayRequestContext) async throws -> Response
    ) async throws -> Response {
        var context = context
        context.route = routes.route(for: Substring(request.uri.path))
        if let route = context.route {
            context.coreContext.endpointPath.value = route.prefix
            context.clientAddress = addresses.clientAddress(
                peer: context.remoteAddress?.ipAddress, forwardedFor: request.headers[values: .xForwardedFor])
        }
        return try await next(request, context)
    }
}

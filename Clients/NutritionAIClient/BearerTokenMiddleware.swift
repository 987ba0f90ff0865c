import Foundation
import HTTPTypes
import OpenAPIRuntime

/// Sends the session's access token on every call; when an answer is 401 and a refresh token is held, refreshes once
/// and sends the call again (the generated client's JSON bodies are buffered, so they can be sent twice).
struct BearerTokenMiddleware: ClientMiddleware {
    let tokens: TokenStore
    let refresh: @Sendable () async throws -> Void

    func intercept(
        _ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        var request = request
        if let token = await tokens.accessToken { request.headerFields[.authorization] = "Bearer \(token)" }
        let (response, responseBody) = try await next(request, body, baseURL)
        guard response.status == .unauthorized, await tokens.refreshToken != nil, body?.iterationBehavior != .single else {
            return (response, responseBody)
        }
        try await refresh()
        if let token = await tokens.accessToken { request.headerFields[.authorization] = "Bearer \(token)" }
        return try await next(request, body, baseURL)
    }
}

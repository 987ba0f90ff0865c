import Foundation
import OpenAPIAsyncHTTPClient
import OpenAPIRuntime

/// The hand-written layer over the generated `Client` (every operation of `gateway/Resources/openapi.json`, typed):
/// sign-in, registration and token refresh. Once signed in, every call through `api` carries the access token, and
/// an expired one is refreshed and the call sent again.
///
///     let session = NutritionAISession(serverURL: URL(string: "http://127.0.0.1:8080")!)
///     try await session.signIn(email: "ada@example.com", password: "correct horse battery")
///     let stats = try await session.api.getUserStats().ok.body.json
public final class NutritionAISession: Sendable {
    /// Every operation of the API; calls carry the session's access token.
    public let api: Client
    private let tokens: TokenStore
    private let anonymous: Client

    public init(serverURL: URL, transport: any ClientTransport = AsyncHTTPClientTransport()) {
        let tokens = TokenStore()
        let anonymous = Client(serverURL: serverURL, transport: transport)
        self.tokens = tokens
        self.anonymous = anonymous
        self.api = Client(
            serverURL: serverURL, transport: transport,
            middlewares: [BearerTokenMiddleware(tokens: tokens, refresh: { try await Self.refresh(anonymous, tokens) })])
    }

    /// Signs in; throws `NutritionAIError` (401 `invalid_credentials`, 429 while the address is locked).
    @discardableResult
    public func signIn(email: String, password: String) async throws -> Components.Schemas.Session {
        let output = try await anonymous.login(body: .json(.init(email: email, password: password)))
        guard case .ok(let answer) = output, case .Session(let session) = try answer.body.json else {
            throw Self.error("login", output)
        }
        await tokens.keep(access: session.accessToken, refresh: session.refreshToken)
        return session
    }

    /// Creates the account (with the name before `@` unless `displayName` is given) in `timeZone`, the device's zone
    /// unless told otherwise, so the user's days are their own from the first request; then signs in.
    @discardableResult
    public func register(
        email: String, password: String, displayName: String? = nil, timeZone: String? = TimeZone.current.identifier
    ) async throws -> Components.Schemas.Session {
        let output = try await anonymous.register(
            body: .json(.init(email: email, password: password, displayName: displayName, timeZone: timeZone)))
        guard case .created(let answer) = output, case .Session(let session) = try answer.body.json else {
            throw Self.error("register", output)
        }
        await tokens.keep(access: session.accessToken, refresh: session.refreshToken)
        return session
    }

    /// Rotates the tokens now (the middleware does it by itself when an access token expires).
    public func refresh() async throws {
        try await Self.refresh(anonymous, tokens)
    }

    private static func refresh(_ client: Client, _ tokens: TokenStore) async throws {
        guard let refreshToken = await tokens.refreshToken else { throw NutritionAIError(operation: "refresh", status: 401, code: "unauthenticated") }
        let output = try await client.refreshSession(body: .json(.init(refreshToken: refreshToken)))
        guard case .ok(let answer) = output, case .Session(let session) = try answer.body.json else {
            await tokens.forget()
            throw error("refresh", output)
        }
        await tokens.keep(access: session.accessToken, refresh: session.refreshToken)
    }

    /// The error for an answer that was not the expected one: its status, read from the output's case.
    static func error(_ operation: String, _ output: some Sendable) -> NutritionAIError {
        let answer = Mirror(reflecting: output).children.first
        var status = answer.flatMap { $0.label }.flatMap { statusOfCase[$0] } ?? 0
        if answer?.label == "undocumented", let code = Mirror(reflecting: answer!.value).children.first(where: { $0.label == "statusCode" }) {
            status = code.value as? Int ?? 0
        }
        return NutritionAIError(operation: operation, status: status)
    }

    /// The generated outputs' case names of the error answers, with their status.
    static let statusOfCase: [String: Int] = [
        "badRequest": 400, "unauthorized": 401, "forbidden": 403, "notFound": 404, "conflict": 409, "contentTooLarge": 413,
        "unsupportedMediaType": 415, "unprocessableContent": 422, "tooManyRequests": 429, "internalServerError": 500,
        "badGateway": 502, "serviceUnavailable": 503, "gatewayTimeout": 504,
    ]
}

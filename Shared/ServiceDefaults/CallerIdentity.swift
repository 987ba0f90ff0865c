import Foundation
import HTTPTypes
import Hummingbird

/// The signed-in caller of a request, as verified by the gateway and passed in `X-User-Id` and `X-Session-Id`.
/// Services trust these headers because only the gateway can reach them and it always replaces client copies.
public struct CallerIdentity: Sendable, Equatable {
    public static let userIdHeader = HTTPField.Name("X-User-Id")!
    public static let sessionIdHeader = HTTPField.Name("X-Session-Id")!
    /// The client's address as the gateway decided it (trusted proxies considered), for the services' records.
    public static let clientAddressHeader = HTTPField.Name("X-Real-IP")!
    /// On a public route, why the bearer token the client sent was not accepted (`token_expired` or
    /// `invalid_token`), so an owner-only method there can answer with the same code a private route would.
    public static let tokenProblemHeader = HTTPField.Name("X-Token-Problem")!
    /// Every header only the gateway may set; it removes clients' copies.
    public static let gatewayOnlyHeaders = [userIdHeader, sessionIdHeader, clientAddressHeader, tokenProblemHeader]

    public var userId: UUID
    public var sessionId: UUID

    public init(userId: UUID, sessionId: UUID) {
        self.userId = userId
        self.sessionId = sessionId
    }

    /// The caller of `request`; 401 when the gateway passed no identity (the route was reached without a token,
    /// or with one the gateway refused on a public route: then the code says why).
    public init(_ request: Request) throws {
        guard let userId = request.headers[Self.userIdHeader].flatMap(UUID.init(uuidString:)),
            let sessionId = request.headers[Self.sessionIdHeader].flatMap(UUID.init(uuidString:))
        else {
            switch request.headers[Self.tokenProblemHeader] {
            case "token_expired": throw APIError(.unauthorized, code: "token_expired", message: "The access token has expired; refresh it.")
            case "invalid_token": throw APIError(.unauthorized, code: "invalid_token", message: "The access token is not valid.")
            default: throw APIError(.unauthorized, code: "unauthenticated", message: "Sign in to use this route.")
            }
        }
        self.init(userId: userId, sessionId: sessionId)
    }
}

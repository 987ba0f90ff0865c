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
    /// Every header only the gateway may set; it removes clients' copies.
    public static let gatewayOnlyHeaders = [userIdHeader, sessionIdHeader, clientAddressHeader]

    public var userId: UUID
    public var sessionId: UUID

    public init(userId: UUID, sessionId: UUID) {
        self.userId = userId
        self.sessionId = sessionId
    }

    /// The caller of `request`; 401 when the gateway passed no identity (the route was reached without a token).
    public init(_ request: Request) throws {
        guard let userId = request.headers[Self.userIdHeader].flatMap(UUID.init(uuidString:)),
            let sessionId = request.headers[Self.sessionIdHeader].flatMap(UUID.init(uuidString:))
        else {
            throw APIError(.unauthorized, code: "unauthenticated", message: "Sign in to use this route.")
        }
        self.init(userId: userId, sessionId: sessionId)
    }
}

/// Why an access token was refused. Each case is safe to name in a response: none carries token contents.
public enum AccessTokenError: Error, Sendable, Equatable {
    /// No verification keys have been fetched yet.
    case keysUnavailable
    /// Longer than the policy allows; refused before any parsing.
    case tooLarge
    /// Not three base64url parts with a JSON header and payload.
    case malformed
    /// `alg` other than the one the key set uses (including `none` and HMAC algorithm confusion), or `crit` present.
    case unsupportedAlgorithm
    /// `kid` missing or not in the key set fetched from the auth service.
    case unknownKey
    case badSignature
    case wrongIssuer
    case wrongAudience
    case expired
    case notYetValid
    /// Claims present but unusable (a subject or session that is not a UUID).
    case invalidClaims
    /// Its session ended (sign-out, password change or reset, refresh-token reuse) or its account was deleted.
    case revoked

    /// A short English reason for `WWW-Authenticate` and the error body.
    public var reason: String {
        switch self {
        case .keysUnavailable: "Token verification keys are not available yet."
        case .tooLarge: "The token is too large."
        case .malformed: "The token is malformed."
        case .unsupportedAlgorithm: "The token's algorithm is not accepted."
        case .unknownKey: "The token was not signed by a known key."
        case .badSignature: "The token's signature is invalid."
        case .wrongIssuer: "The token was issued by someone else."
        case .wrongAudience: "The token is meant for another audience."
        case .expired: "The token has expired."
        case .notYetValid: "The token is not valid yet."
        case .invalidClaims: "The token's claims are invalid."
        case .revoked: "The token's session has ended; sign in again."
        }
    }
}

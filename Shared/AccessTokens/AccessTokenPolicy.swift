/// What a token must say to be accepted, beyond a good signature.
public struct AccessTokenPolicy: Sendable, Equatable {
    /// The `iss` the auth service writes.
    public var issuer: String
    /// The `aud` this verifier serves.
    public var audience: String
    /// Tokens longer than this are refused unread (ours are about 400 bytes).
    public var maxTokenBytes: Int
    /// Clock skew tolerated on `nbf` and `iat`; `exp` is strict.
    public var leeway: Duration

    public init(issuer: String, audience: String, maxTokenBytes: Int = 4096, leeway: Duration = .seconds(30)) {
        self.issuer = issuer
        self.audience = audience
        self.maxTokenBytes = maxTokenBytes
        self.leeway = leeway
    }
}

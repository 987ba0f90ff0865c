import Configuration

extension AccessTokenPolicy {
    /// The issuer written into tokens unless `JWT_ISSUER` says otherwise.
    public static let defaultIssuer = "nutritionai-auth"
    /// The audience written into tokens unless `JWT_AUDIENCE` says otherwise.
    public static let defaultAudience = "nutritionai-api"

    /// Reads `JWT_ISSUER` and `JWT_AUDIENCE`; the auth service and the gateway read the same keys.
    public init(config: ConfigReader) {
        self.init(
            issuer: config.string(forKey: "jwt.issuer", default: Self.defaultIssuer),
            audience: config.string(forKey: "jwt.audience", default: Self.defaultAudience))
    }
}

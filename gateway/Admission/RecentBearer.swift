import AccessTokens

/// The `Authorization` header a client connection last sent and the caller its bearer token proved, kept by the
/// connection's handler: a client sends the same token on every request until it refreshes it, and comparing the
/// header costs less than reading the token out of it and looking it up in the verifier's shared cache (the cached-token
/// route's profile). The caller is checked again for expiry and revocation on every request
/// (`AccessTokenVerifier.stillHolds`), as a cache hit is.
struct RecentBearer: Sendable {
    let authorization: String
    let caller: VerifiedAccessToken
}

/// The tokens of a signed-in session, shared by the session and the middleware that sends them.
actor TokenStore {
    private(set) var accessToken: String?
    private(set) var refreshToken: String?

    /// Keeps a new pair (after sign-in, registration or refresh).
    func keep(access: String, refresh: String) {
        accessToken = access
        refreshToken = refresh
    }

    /// Forgets both (signed out, or the session ended).
    func forget() {
        accessToken = nil
        refreshToken = nil
    }
}

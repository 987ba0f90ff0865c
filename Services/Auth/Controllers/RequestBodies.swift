/// `POST /api/auth/register`: `displayName` (or its alias `name`, as the dashboard seed sends it) and `timeZone` are
/// optional.
struct RegisterRequest: Decodable {
    var email: String
    var password: String
    var displayName: String?
    /// The seeds' name for `displayName`.
    var name: String?
    /// The device's IANA zone, which the user's days are counted in from the start; UTC when absent.
    var timeZone: String?
}

/// `POST /api/auth/login`.
struct LoginRequest: Decodable {
    var email: String
    var password: String
}

/// `POST /api/auth/refresh`.
struct RefreshRequest: Decodable {
    /// Absent when a web client sends it in the refresh cookie.
    var refreshToken: String?
}

/// `PUT /api/auth/password`.
struct ChangePasswordRequest: Decodable {
    var currentPassword: String
    var newPassword: String
}

/// `POST /api/auth/password-reset`.
struct PasswordResetRequest: Decodable {
    var email: String
}

/// `POST /api/auth/password-reset/confirm`.
struct PasswordResetConfirmation: Decodable {
    var token: String
    var newPassword: String
}

/// `DELETE /api/users/me`: the password, to confirm.
struct DeleteAccountRequest: Decodable {
    var password: String
}

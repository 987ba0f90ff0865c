/// `POST /api/auth/register`.
struct RegisterRequest: Decodable {
    var email: String
    var password: String
    var displayName: String
}

/// `POST /api/auth/login`.
struct LoginRequest: Decodable {
    var email: String
    var password: String
}

/// `POST /api/auth/refresh`.
struct RefreshRequest: Decodable {
    var refreshToken: String
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

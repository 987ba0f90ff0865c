/// What a new password must be (OWASP ASVS 2.1): at least 8 characters, at most 1024 UTF-8 bytes (any length
/// up to that counts in full), not one of the most common passwords. No composition rules.
enum PasswordPolicy {
    static let minimumCharacters = 8
    static let maximumBytes = 1024

    /// Why `password` is refused, or nil when it is acceptable.
    static func problem(with password: String) -> String? {
        if password.count < minimumCharacters { return "must be at least \(minimumCharacters) characters" }
        if password.utf8.count > maximumBytes { return "must be at most \(maximumBytes) bytes" }
        if commonPasswords.contains(password.lowercased()) { return "is too common; choose another" }
        return nil
    }

    /// A few of the passwords seen most often in breaches (and therefore tried first by attackers).
    static let commonPasswords: Set<String> = [
        "password", "password1", "password123", "12345678", "123456789", "1234567890", "qwertyuiop", "qwerty123",
        "iloveyou", "11111111", "00000000", "abc12345", "abcd1234", "football", "baseball", "sunshine", "princess",
        "welcome1", "letmein1", "passw0rd", "trustno1", "superman", "1qaz2wsx", "starwars", "dragon12", "monkey12",
        "whatever", "asdfghjkl", "zxcvbnm1", "changeme", "p@ssw0rd", "admin123", "qwertyui", "88888888", "12341234",
    ]
}

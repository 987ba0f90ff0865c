/// A secret that grants access by being known (a share link's token): 256 bits from the system's secure
/// generator, base64url, 43 characters.
public enum CapabilityToken {
    public static let length = 43

    /// A new token.
    public static func generate() -> String {
        var generator = SystemRandomNumberGenerator()
        return Base64URL.encode((0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
    }

    /// Whether `text` has the shape of a token (43 base64url characters); anything else cannot be one.
    public static func isWellFormed(_ text: some StringProtocol) -> Bool {
        text.utf8.count == length
            && text.utf8.allSatisfy { byte in
                (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
                    || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
            }
    }
}

import Foundation

/// A syntactically valid email address, trimmed; `key` is the case-insensitive form accounts are found by.
struct EmailAddress: Sendable, Equatable {
    /// As the user typed it, minus surrounding whitespace.
    let value: String
    /// Lower-cased, for uniqueness and look-up.
    var key: String { Self.key(value) }

    /// The look-up key of any text, valid address or not (sign-in throttling counts malformed ones too).
    static func key(_ text: String) -> String {
        text.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
    }

    /// Nil unless `text` looks like `local@domain.tld` within RFC 5321's lengths and without spaces or controls.
    init?(_ text: String) {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        let parts = trimmed.split(separator: "@", omittingEmptySubsequences: false)
        guard trimmed.utf8.count <= 254, parts.count == 2 else { return nil }
        let local = parts[0], domain = parts[1]
        guard (1...64).contains(local.utf8.count), !domain.isEmpty,
            trimmed.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value != 0x7F && $0 != "<" && $0 != ">" && $0 != "," }),
            !local.hasPrefix("."), !local.hasSuffix("."), !local.contains("..")
        else { return nil }
        let labels = domain.split(separator: ".", omittingEmptySubsequences: false)
        guard labels.count >= 2, labels.allSatisfy({ !$0.isEmpty && $0.utf8.count <= 63 && !$0.hasPrefix("-") && !$0.hasSuffix("-") }) else {
            return nil
        }
        self.value = trimmed
    }
}

import Foundation

/// One header field of an Internet message (RFC 5322), written as ASCII: non-ASCII text becomes RFC 2047
/// encoded words (`=?UTF-8?B?...?=`), and a long field is folded onto continuation lines of at most 78 characters.
enum HeaderField {
    /// The longest line a field is folded to (RFC 5322 2.1.1).
    static let lineLimit = 78
    /// UTF-8 bytes per encoded word: 42 bytes are 56 base64 characters, a 68-character word that fits after
    /// `Subject: ` and stays under RFC 2047's 75.
    static let bytesPerEncodedWord = 42

    /// `Name: value` with its line end, unstructured text (a subject): encoded if it is not plain ASCII, folded if long.
    static func text(_ name: String, _ value: String) -> String {
        let value = singleLine(value)
        guard isPlainASCII(value) else { return fold(name, encodedWords(value)) }
        return fold(name, value.split(separator: " ", omittingEmptySubsequences: false).map(String.init))
    }

    /// `Name: Display Name <address>` with its line end; the display name is quoted or encoded as needed.
    static func mailbox(_ name: String, _ field: String) -> String {
        let field = singleLine(field)
        guard let open = field.lastIndex(of: "<"), field.hasSuffix(">") else {
            return fold(name, [field.trimmingCharacters(in: .whitespaces)])
        }
        let address = String(field[open...])
        var display = field[..<open].trimmingCharacters(in: .whitespaces)
        if display.count >= 2, display.hasPrefix("\""), display.hasSuffix("\"") { display = String(display.dropFirst().dropLast()) }
        if display.isEmpty { return fold(name, [address]) }
        if isPlainASCII(display) {
            // A name with RFC 5322 specials (a comma, a dot...) must be a quoted string.
            let specials = CharacterSet(charactersIn: "()<>[]:;@\\,.\"")
            let phrase = display.rangeOfCharacter(from: specials) == nil ? display
                : "\"" + display.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
            return fold(name, phrase.split(separator: " ", omittingEmptySubsequences: false).map(String.init) + [address])
        }
        return fold(name, encodedWords(display) + [address])
    }

    /// `=?UTF-8?B?...?=` words of at most `bytesPerEncodedWord` bytes each, never splitting a character's bytes.
    static func encodedWords(_ text: String) -> [String] {
        var words: [String] = []
        var chunk: [UInt8] = []
        for scalar in text.unicodeScalars {
            let bytes = Array(String(scalar).utf8)
            if chunk.count + bytes.count > bytesPerEncodedWord {
                words.append(encodedWord(chunk))
                chunk = []
            }
            chunk += bytes
        }
        if !chunk.isEmpty || words.isEmpty { words.append(encodedWord(chunk)) }
        return words
    }

    private static func encodedWord(_ bytes: [UInt8]) -> String { "=?UTF-8?B?\(Data(bytes).base64EncodedString())?=" }

    /// Printable ASCII (and tabs) that a reader would not mistake for an encoded word.
    private static func isPlainASCII(_ text: String) -> Bool {
        text.unicodeScalars.allSatisfy { ($0.value >= 0x20 && $0.value < 0x7F) || $0 == "\t" } && !text.contains("=?")
    }

    /// Line breaks inside a value would start a new header (header injection): they become spaces.
    private static func singleLine(_ value: String) -> String {
        String(value.unicodeScalars.map { $0 == "\r" || $0 == "\n" ? " " : Character($0) })
    }

    /// Joins `tokens` with spaces, turning a space into a line break plus space wherever the line would pass the limit;
    /// unfolding (removing each CRLF) gives back the tokens joined by single spaces.
    private static func fold(_ name: String, _ tokens: [String]) -> String {
        var text = name + ":"
        var lineLength = text.utf8.count
        for (index, token) in tokens.enumerated() {
            if index > 0, lineLength + 1 + token.utf8.count > lineLimit, !token.isEmpty {
                text += "\r\n " + token
                lineLength = 1 + token.utf8.count
            } else {
                text += " " + token
                lineLength += 1 + token.utf8.count
            }
        }
        return text + "\r\n"
    }
}

import Foundation

/// Text helpers of the page and the card.
enum PageText {
    /// `text` without control characters (XML forbids most of them even escaped) and without the bidirectional
    /// overrides that could make a name spoof the text around it; line breaks and tabs become spaces.
    static func clean(_ text: String) -> String {
        let kept = text.unicodeScalars.compactMap { scalar -> Unicode.Scalar? in
            if scalar == "\n" || scalar == "\t" || scalar == "\r" { return " " }
            if scalar.properties.generalCategory == .control { return nil }
            if (0x202A...0x202E).contains(scalar.value) || (0x2066...0x2069).contains(scalar.value) { return nil }
            if scalar.value == 0xFFFE || scalar.value == 0xFFFF { return nil }
            return scalar
        }
        return String(String.UnicodeScalarView(kept)).trimmingCharacters(in: .whitespaces)
    }

    /// `text` in at most `maximumLines` lines of about `width` characters, broken between words; an ellipsis
    /// ends the last line when the text does not fit.
    static func lines(_ text: String, width: Int, maximumLines: Int) -> [String] {
        var lines: [String] = []
        var current = ""
        var words = text.split(separator: " ").map(String.init)[...]
        while let word = words.first {
            let candidate = current.isEmpty ? word : current + " " + word
            if candidate.count <= width {
                current = candidate
                words = words.dropFirst()
            } else if current.isEmpty {
                // One word longer than a line: cut it.
                current = String(word.prefix(width))
                words[words.startIndex] = String(word.dropFirst(width))
            } else {
                lines.append(current)
                current = ""
                if lines.count == maximumLines { break }
            }
        }
        if lines.count < maximumLines, !current.isEmpty {
            lines.append(current)
            current = ""
        }
        if (!words.isEmpty || !current.isEmpty), let last = lines.popLast() {
            lines.append(String(last.prefix(width - 1)).trimmingCharacters(in: .whitespaces) + "…")
        }
        return lines
    }

    /// `value` with at most `decimals` decimals and no trailing zeros ("12.5", "420").
    static func number(_ value: Double, decimals: Int) -> String {
        guard value.isFinite else { return "0" }
        let text = String(format: "%.\(decimals)f", value)
        guard decimals > 0, text.contains(".") else { return text }
        var trimmed = Substring(text)
        while trimmed.hasSuffix("0") { trimmed = trimmed.dropLast() }
        if trimmed.hasSuffix(".") { trimmed = trimmed.dropLast() }
        return String(trimmed)
    }
}

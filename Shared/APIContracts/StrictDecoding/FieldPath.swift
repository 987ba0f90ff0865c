/// A field's place in a request body, spelt the one way every answer spells it: keys joined by dots, array indices in
/// brackets (`items[0].productId`), and `body` for the body itself. A key that is not a name (letters, digits, `_`,
/// `$` and `-`, not starting with a digit or `-`: an unknown field such as `""`, `"a.b"` or one with a control
/// character) is written in brackets as a JSON string (`per100g["a.b"]`, `["\u0006"]`), so that every path reads
/// back to one place and holds no control character.
public struct FieldPath: Hashable, Sendable, CustomStringConvertible {
    /// Each step from the body down: a key or an index.
    public enum Step: Hashable, Sendable {
        case key(String)
        case index(Int)
    }

    public var steps: [Step]

    /// The body itself.
    public static let body = FieldPath(steps: [])

    public init(steps: [Step]) {
        self.steps = steps
    }

    /// The path of a decoder's coding path (an integer key is an index, as arrays' containers make them).
    public init(_ codingPath: [any CodingKey]) {
        steps = codingPath.map { key in key.intValue.map(Step.index) ?? .key(key.stringValue) }
    }

    /// This path with `key` appended.
    public func appending(_ key: String) -> FieldPath { FieldPath(steps: steps + [.key(key)]) }

    /// This path with `index` appended.
    public func appending(index: Int) -> FieldPath { FieldPath(steps: steps + [.index(index)]) }

    public var description: String {
        guard !steps.isEmpty else { return "body" }
        var text = ""
        for step in steps {
            switch step {
            case .key(let key) where Self.isName(key): text += text.isEmpty ? key : ".\(key)"
            case .key(let key): text += "[\(Self.quoted(key))]"
            case .index(let index): text += "[\(index)]"
            }
        }
        return text
    }

    /// Whether `key` is written bare: a letter, `_` or `$`, then letters, digits, `_`, `$` or `-` (ASCII).
    static func isName(_ key: String) -> Bool {
        guard let first = key.utf8.first, Self.isNameStart(first) else { return false }
        return key.utf8.allSatisfy { Self.isNameStart($0) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || $0 == UInt8(ascii: "-") }
    }

    private static func isNameStart(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
            || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "$")
    }

    /// `key` as a JSON string literal: `"` and `\` escaped, control characters (C0, DEL, C1) as `\u00XX`.
    static func quoted(_ key: String) -> String {
        var text = "\""
        for scalar in key.unicodeScalars {
            switch scalar {
            case "\"": text += "\\\""
            case "\\": text += "\\\\"
            case _ where scalar.properties.generalCategory == .control:
                let hex = String(scalar.value, radix: 16, uppercase: false)
                text += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: text.unicodeScalars.append(scalar)
            }
        }
        return text + "\""
    }
}

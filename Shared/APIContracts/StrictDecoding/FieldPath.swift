/// A field's place in a request body, spelt the one way every answer spells it: keys joined by dots, array indices in
/// brackets (`items[0].productId`), and `body` for the body itself.
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
            case .key(let key): text += text.isEmpty ? key : ".\(key)"
            case .index(let index): text += "[\(index)]"
            }
        }
        return text
    }
}

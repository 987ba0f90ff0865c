import Foundation
import SyncContracts

/// Checks JSON values against the JSON Schema (2020-12) subset our contract documents use. Keywords outside that
/// subset are reported by `unsupportedKeywords`, so a document cannot rely on a rule this validator would skip.
public struct JSONSchemaValidator: Sendable {
    /// The keywords checked here.
    static let validationKeywords: Set<String> = [
        "type", "properties", "required", "additionalProperties", "items", "enum", "const", "$ref", "oneOf", "anyOf", "allOf",
        "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "minLength", "maxLength", "minItems", "maxItems",
        "pattern", "format", "not", "if", "then", "else", "dependentRequired", "dependentSchemas", "minProperties", "maxProperties",
    ]
    /// Keywords that only describe.
    static let annotationKeywords: Set<String> = [
        "description", "title", "examples", "example", "default", "deprecated", "readOnly", "writeOnly", "$comment", "contentMediaType",
        "contentEncoding",
    ]
    static let formats: Set<String> = ["date-time", "date", "uuid", "email", "uri", "binary"]

    /// The whole document `$ref`s resolve against.
    public let document: JSONValue

    public init(document: JSONValue) {
        self.document = document
    }

    /// The problems of `value` against `schema`, each as "path: problem"; empty when it conforms.
    public func problems(of value: JSONValue, against schema: JSONValue, at path: String = "$") -> [String] {
        guard case .object(let rules) = schema else {
            if case .bool(false) = schema { return ["\(path): no value is allowed here"] }
            return []
        }
        var problems: [String] = []
        if let reference = rules["$ref"]?.stringValue {
            guard let target = resolve(reference) else { return ["\(path): unresolvable $ref \(reference)"] }
            problems += self.problems(of: value, against: target, at: path)
        }
        if case .array(let types)? = rules["type"] {
            let names = Set(types.compactMap(\.stringValue))
            if names.isDisjoint(with: value.schemaTypes) { problems.append("\(path): \(value) is not of type \(names.sorted())") }
        } else if let name = rules["type"]?.stringValue, !value.schemaTypes.contains(name) {
            problems.append("\(path): \(value) is not of type \(name)")
        }
        if case .array(let allowed)? = rules["enum"], !allowed.contains(value) {
            problems.append("\(path): \(value) is not one of \(allowed.map(\.description))")
        }
        if let constant = rules["const"], constant != value {
            problems.append("\(path): \(value) is not \(constant)")
        }
        problems += combinatorProblems(value, rules, path)
        switch value {
        case .object(let members): problems += objectProblems(members, rules, path)
        case .array(let elements): problems += arrayProblems(elements, rules, path)
        case .string(let text): problems += stringProblems(text, rules, path)
        case .number(let number): problems += numberProblems(number, rules, path)
        default: break
        }
        return problems
    }

    /// Every keyword under `schema` (recursively) that this validator neither checks nor treats as annotation.
    public func unsupportedKeywords(in schema: JSONValue, at path: String) -> [String] {
        guard case .object(let rules) = schema else { return [] }
        var found: [String] = []
        for (keyword, rule) in rules {
            switch keyword {
            case "properties":
                for (name, property) in rule.objectValue ?? [:] { found += unsupportedKeywords(in: property, at: "\(path)/properties/\(name)") }
            case "items", "additionalProperties":
                found += unsupportedKeywords(in: rule, at: "\(path)/\(keyword)")
            case "oneOf", "anyOf", "allOf":
                for (index, branch) in (rule.arrayValue ?? []).enumerated() {
                    found += unsupportedKeywords(in: branch, at: "\(path)/\(keyword)/\(index)")
                }
            case "not", "if", "then", "else":
                found += unsupportedKeywords(in: rule, at: "\(path)/\(keyword)")
            case "dependentSchemas":
                for (name, dependent) in rule.objectValue ?? [:] {
                    found += unsupportedKeywords(in: dependent, at: "\(path)/dependentSchemas/\(name)")
                }
            case "format":
                if let name = rule.stringValue, !Self.formats.contains(name) { found.append("\(path): format \(name)") }
            default:
                if !Self.validationKeywords.contains(keyword) && !Self.annotationKeywords.contains(keyword) && !keyword.hasPrefix("x-") {
                    found.append("\(path): \(keyword)")
                }
            }
        }
        if let reference = rules["$ref"]?.stringValue, resolve(reference) == nil { found.append("\(path): unresolvable $ref \(reference)") }
        return found
    }

    /// The value a local reference (`#/a/b`) points at.
    public func resolve(_ reference: String) -> JSONValue? {
        guard reference.hasPrefix("#/") else { return nil }
        var current = document
        for token in reference.dropFirst(2).split(separator: "/") {
            let key = token.replacingOccurrences(of: "~1", with: "/").replacingOccurrences(of: "~0", with: "~")
            switch current {
            case .object(let members):
                guard let next = members[key] else { return nil }
                current = next
            case .array(let elements):
                guard let index = Int(key), elements.indices.contains(index) else { return nil }
                current = elements[index]
            default: return nil
            }
        }
        return current
    }

    private func combinatorProblems(_ value: JSONValue, _ rules: [String: JSONValue], _ path: String) -> [String] {
        var problems: [String] = []
        for branch in rules["allOf"]?.arrayValue ?? [] {
            problems += self.problems(of: value, against: branch, at: path)
        }
        if let branches = rules["anyOf"]?.arrayValue, !branches.contains(where: { self.problems(of: value, against: $0, at: path).isEmpty }) {
            problems.append("\(path): \(value) matches none of anyOf")
        }
        if let branches = rules["oneOf"]?.arrayValue {
            let matching = branches.filter { self.problems(of: value, against: $0, at: path).isEmpty }.count
            if matching != 1 { problems.append("\(path): \(value) matches \(matching) branches of oneOf, not exactly 1") }
        }
        if let negated = rules["not"], self.problems(of: value, against: negated, at: path).isEmpty {
            problems.append("\(path): \(value) matches what `not` excludes")
        }
        if let condition = rules["if"] {
            let holds = self.problems(of: value, against: condition, at: path).isEmpty
            if let consequence = rules[holds ? "then" : "else"] { problems += self.problems(of: value, against: consequence, at: path) }
        }
        return problems
    }

    private func objectProblems(_ members: [String: JSONValue], _ rules: [String: JSONValue], _ path: String) -> [String] {
        var problems: [String] = []
        let properties = rules["properties"]?.objectValue ?? [:]
        for case .string(let name) in rules["required"]?.arrayValue ?? [] where members[name] == nil {
            problems.append("\(path): missing required property \(name)")
        }
        if let minimum = rules["minProperties"]?.integer, members.count < minimum { problems.append("\(path): fewer than \(minimum) properties") }
        if let maximum = rules["maxProperties"]?.integer, members.count > maximum { problems.append("\(path): more than \(maximum) properties") }
        for (name, needed) in rules["dependentRequired"]?.objectValue ?? [:] where members[name] != nil {
            for case .string(let other) in needed.arrayValue ?? [] where members[other] == nil {
                problems.append("\(path): \(name) needs \(other)")
            }
        }
        for (name, dependent) in (rules["dependentSchemas"]?.objectValue ?? [:]).sorted(by: { $0.key < $1.key }) where members[name] != nil {
            problems += self.problems(of: .object(members), against: dependent, at: path)
        }
        for (name, member) in members.sorted(by: { $0.key < $1.key }) {
            if let property = properties[name] {
                problems += self.problems(of: member, against: property, at: "\(path).\(name)")
            } else if let additional = rules["additionalProperties"] {
                problems += self.problems(of: member, against: additional, at: "\(path).\(name)")
            }
        }
        return problems
    }

    private func arrayProblems(_ elements: [JSONValue], _ rules: [String: JSONValue], _ path: String) -> [String] {
        var problems: [String] = []
        if let minimum = rules["minItems"]?.integer, elements.count < minimum { problems.append("\(path): fewer than \(minimum) items") }
        if let maximum = rules["maxItems"]?.integer, elements.count > maximum { problems.append("\(path): more than \(maximum) items") }
        if let items = rules["items"] {
            for (index, element) in elements.enumerated() { problems += self.problems(of: element, against: items, at: "\(path)[\(index)]") }
        }
        return problems
    }

    private func stringProblems(_ text: String, _ rules: [String: JSONValue], _ path: String) -> [String] {
        var problems: [String] = []
        let length = text.count
        if let minimum = rules["minLength"]?.integer, length < minimum { problems.append("\(path): shorter than \(minimum)") }
        if let maximum = rules["maxLength"]?.integer, length > maximum { problems.append("\(path): longer than \(maximum)") }
        if let pattern = rules["pattern"]?.stringValue {
            if let expression = try? NSRegularExpression(pattern: pattern) {
                let range = NSRange(text.startIndex..., in: text)
                if expression.firstMatch(in: text, range: range) == nil { problems.append("\(path): \"\(text)\" does not match \(pattern)") }
            } else {
                problems.append("\(path): unusable pattern \(pattern)")
            }
        }
        if let format = rules["format"]?.stringValue, !Self.conforms(text, to: format) {
            problems.append("\(path): \"\(text)\" is not a \(format)")
        }
        return problems
    }

    private func numberProblems(_ number: Double, _ rules: [String: JSONValue], _ path: String) -> [String] {
        var problems: [String] = []
        if case .number(let bound)? = rules["minimum"], number < bound { problems.append("\(path): \(number) is below \(bound)") }
        if case .number(let bound)? = rules["maximum"], number > bound { problems.append("\(path): \(number) is above \(bound)") }
        if case .number(let bound)? = rules["exclusiveMinimum"], number <= bound { problems.append("\(path): \(number) is not above \(bound)") }
        if case .number(let bound)? = rules["exclusiveMaximum"], number >= bound { problems.append("\(path): \(number) is not below \(bound)") }
        return problems
    }

    static func conforms(_ text: String, to format: String) -> Bool {
        switch format {
        case "date-time":
            return (try? Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true))) != nil
                || (try? Date(text, strategy: .iso8601)) != nil
        case "date":
            guard text.count == 10, let date = try? Date(text + "T00:00:00Z", strategy: .iso8601) else { return false }
            return date.formatted(Date.ISO8601FormatStyle().year().month().day()) == text
        case "uuid":
            return UUID(uuidString: text) != nil
        case "email":
            let parts = text.split(separator: "@", omittingEmptySubsequences: false)
            return parts.count == 2 && !parts[0].isEmpty && parts[1].contains(".")
        case "uri":
            return URL(string: text)?.scheme != nil
        default:
            return true
        }
    }
}

extension JSONValue {
    fileprivate var integer: Int? {
        if case .number(let value) = self, value.rounded() == value { return Int(value) }
        return nil
    }
}

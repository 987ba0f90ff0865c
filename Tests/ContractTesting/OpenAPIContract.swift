import Foundation
import SyncContracts

/// The OpenAPI document of the public API (gateway/Resources/openapi.json), able to say whether a real response
/// is one the document promises for that request.
public struct OpenAPIContract: Sendable {
    /// One operation: its method (lower case), path template and the operation object.
    public struct Operation: Sendable {
        public let method: String
        public let template: String
        public let object: JSONValue

        public var id: String { object["operationId"]?.stringValue ?? "\(method.uppercased()) \(template)" }
    }

    public let document: JSONValue
    public let operations: [Operation]
    let validator: JSONSchemaValidator

    static let methods = ["get", "put", "post", "delete", "patch", "head", "options"]

    public init(document: JSONValue) {
        self.document = document
        self.validator = JSONSchemaValidator(document: document)
        var operations: [Operation] = []
        for (template, item) in (document["paths"]?.objectValue ?? [:]).sorted(by: { $0.key < $1.key }) {
            for method in Self.methods {
                if let object = item[method] { operations.append(Operation(method: method, template: template, object: object)) }
            }
        }
        self.operations = operations
    }

    /// The document in the repository.
    public static func repository() throws -> OpenAPIContract {
        OpenAPIContract(document: try JSONValue.parse(Data(contentsOf: ContractDocuments.openAPI)))
    }

    /// The operation serving `method` on the concrete `path` (query ignored): among the templates that match, the one
    /// with the most literal segments (`/api/foods/search` before `/api/foods/{id}`).
    public func operation(method: String, path: String) -> Operation? {
        let segments = Self.segments(of: path)
        let method = method.lowercased()
        return
            operations
            .filter { $0.method == method }
            .compactMap { operation -> (Operation, Int)? in
                let template = Self.segments(of: operation.template)
                guard template.count == segments.count else { return nil }
                var literals = 0
                for (expected, actual) in zip(template, segments) {
                    if expected.hasPrefix("{") && expected.hasSuffix("}") {
                        if actual.isEmpty { return nil }
                    } else if expected == actual {
                        literals += 1
                    } else {
                        return nil
                    }
                }
                return (operation, literals)
            }
            .max { $0.1 < $1.1 }?.0
    }

    /// What is wrong with a real answer to `method path`: an undocumented operation or status, an undocumented
    /// content type, a JSON body that does not match the documented schema, or a textual body with an upper-case id.
    /// Empty when it conforms.
    public func problems(method: String, path: String, status: Int, contentType: String?, body: Data) -> [String] {
        let call = "\(method.uppercased()) \(path) → \(status)"
        let textual = contentType.map { $0.contains("json") || $0.hasPrefix("text/") } ?? false
        let spelling = textual ? IdSpelling.problems(in: String(decoding: body, as: UTF8.self), at: call) : []
        return spelling + schemaProblems(call: call, method: method, path: path, status: status, contentType: contentType, body: body)
    }

    /// The operation, status, content type and schema part of ``problems(method:path:status:contentType:body:)``.
    private func schemaProblems(call: String, method: String, path: String, status: Int, contentType: String?, body: Data) -> [String] {
        guard let operation = operation(method: method, path: path) else {
            // A method the document does not declare is answered 405 in the error shape (RFC 9110), not by an operation.
            if status == 405, let errorBody = validator.resolve("#/components/schemas/ErrorBody") {
                guard let value = try? JSONValue.parse(body) else { return ["\(call): the body is not JSON"] }
                return validator.problems(of: value, against: errorBody).map { "\(call): \($0)" }
            }
            return ["\(call): no operation in the document"]
        }
        guard let response = response(of: operation, status: status) else {
            return ["\(call): status \(status) not documented for \(operation.id)"]
        }
        let content = response["content"]?.objectValue ?? [:]
        if body.isEmpty {
            return []
        }
        guard !content.isEmpty else { return ["\(call): a body was sent but \(operation.id) documents none for \(status)"] }
        let mediaType = (contentType ?? "").split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
        guard let media = content[mediaType] ?? content.first(where: { Self.matches(mediaType, range: $0.key) })?.value else {
            return ["\(call): content type \(mediaType) not documented (documented: \(content.keys.sorted()))"]
        }
        guard mediaType == "application/json" || mediaType.hasSuffix("+json"), let schema = media["schema"] else { return [] }
        do {
            let value = try JSONValue.parse(body)
            return validator.problems(of: value, against: schema).map { "\(call) \(operation.id): \($0)" }
        } catch {
            return ["\(call): the body is not JSON"]
        }
    }

    /// The response object documented for `status` (exact code, then `4XX`-style range, then `default`), `$ref`s followed.
    public func response(of operation: Operation, status: Int) -> JSONValue? {
        guard let responses = operation.object["responses"] else { return nil }
        let found = responses[String(status)] ?? responses["\(status / 100)XX"] ?? responses["default"]
        if let reference = found?["$ref"]?.stringValue { return validator.resolve(reference) }
        return found
    }

    /// Every schema keyword the validator would not check, and every `$ref` that does not resolve, anywhere in the document.
    public func unsupportedKeywords() -> [String] {
        var found: [String] = []
        for (name, schema) in document["components"]?["schemas"]?.objectValue ?? [:] {
            found += validator.unsupportedKeywords(in: schema, at: "#/components/schemas/\(name)")
        }
        func visit(_ value: JSONValue, _ path: String) {
            switch value {
            case .object(let members):
                for (key, member) in members {
                    if key == "schema" {
                        found += validator.unsupportedKeywords(in: member, at: "\(path)/schema")
                    } else {
                        visit(member, "\(path)/\(key)")
                    }
                    if key == "$ref", let reference = member.stringValue, validator.resolve(reference) == nil {
                        found.append("\(path): unresolvable $ref \(reference)")
                    }
                }
            case .array(let elements):
                for (index, element) in elements.enumerated() { visit(element, "\(path)/\(index)") }
            default: break
            }
        }
        visit(document["paths"] ?? .null, "#/paths")
        visit(document["components"]?["responses"] ?? .null, "#/components/responses")
        visit(document["components"]?["parameters"] ?? .null, "#/components/parameters")
        visit(document["components"]?["requestBodies"] ?? .null, "#/components/requestBodies")
        return found
    }

    static func segments(of path: String) -> [Substring] {
        let withoutQuery = path.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        return withoutQuery.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map { $0 }
    }

    static func matches(_ mediaType: String, range: String) -> Bool {
        let range = range.lowercased()
        if range == "*/*" { return true }
        if range.hasSuffix("/*") { return mediaType.hasPrefix(range.dropLast()) }
        return range == mediaType
    }
}

/// Where the contract documents live in the repository.
public enum ContractDocuments {
    static let repositoryRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    public static let openAPI = repositoryRoot.appendingPathComponent("gateway/Resources/openapi.json")
    public static let asyncAPI = repositoryRoot.appendingPathComponent("docs/asyncapi.json")
    public static let gatewayRoutes = repositoryRoot.appendingPathComponent("deploy/gateway-routes.json")
    /// The SHA-256 of the OpenAPI document the typed client was generated from (`deploy/generate-client` writes it).
    public static let generatedClientStamp = repositoryRoot.appendingPathComponent("Clients/NutritionAIClient/Generated/openapi.json.sha256")
}

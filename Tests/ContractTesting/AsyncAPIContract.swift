import Foundation
import SyncContracts

/// The AsyncAPI document of the event topics (docs/asyncapi.json), able to say whether a real event is one the
/// document promises on its topic.
public struct AsyncAPIContract: Sendable {
    public let document: JSONValue
    let validator: JSONSchemaValidator

    public init(document: JSONValue) {
        self.document = document
        self.validator = JSONSchemaValidator(document: document)
    }

    /// The document in the repository.
    public static func repository() throws -> AsyncAPIContract {
        AsyncAPIContract(document: try JSONValue.parse(Data(contentsOf: ContractDocuments.asyncAPI)))
    }

    /// The topics (channel addresses) the document describes.
    public var topics: Set<String> {
        Set((document["channels"]?.objectValue ?? [:]).values.compactMap { $0["address"]?.stringValue })
    }

    /// The message objects (references followed) of the channel with address `topic`.
    public func messages(topic: String) -> [JSONValue] {
        guard let channel = (document["channels"]?.objectValue ?? [:]).values.first(where: { $0["address"]?.stringValue == topic }) else {
            return []
        }
        return (channel["messages"]?.objectValue ?? [:]).values.map { entry in entry["$ref"]?.stringValue.flatMap(validator.resolve) ?? entry }
    }

    /// The payload schemas of the messages the channel with address `topic` carries.
    public func payloadSchemas(topic: String) -> [JSONValue] {
        messages(topic: topic).compactMap { message -> JSONValue? in
            guard let payload = message["payload"] else { return nil }
            // A multi-format schema object carries the JSON Schema under `schema`.
            return payload["schemaFormat"] != nil ? payload["schema"] : payload
        }
    }

    /// What is wrong with `event` (the bytes on the topic) against the messages of `topic`, and every upper-case id in
    /// it; empty when one message matches and every id is lower case.
    public func problems(topic: String, event: Data) -> [String] {
        IdSpelling.problems(in: String(decoding: event, as: UTF8.self), at: topic) + schemaProblems(topic: topic, event: event)
    }

    /// The schema part of ``problems(topic:event:)``.
    private func schemaProblems(topic: String, event: Data) -> [String] {
        let schemas = payloadSchemas(topic: topic)
        guard !schemas.isEmpty else { return ["\(topic): no channel or message in the document"] }
        let value: JSONValue
        do { value = try JSONValue.parse(event) } catch { return ["\(topic): the event is not JSON"] }
        var problems: [String] = []
        for schema in schemas {
            let found = validator.problems(of: value, against: schema)
            if found.isEmpty { return [] }
            problems += found.map { "\(topic): \($0)" }
        }
        return problems
    }

    /// Unsupported keywords and unresolvable references in the component schemas and message payloads.
    public func unsupportedKeywords() -> [String] {
        var found: [String] = []
        for (name, schema) in document["components"]?["schemas"]?.objectValue ?? [:] {
            found += validator.unsupportedKeywords(in: schema, at: "#/components/schemas/\(name)")
        }
        for topic in topics {
            for schema in payloadSchemas(topic: topic) { found += validator.unsupportedKeywords(in: schema, at: "\(topic) payload") }
        }
        return found
    }
}

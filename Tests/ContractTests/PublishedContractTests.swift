import ContractTesting
import EventContracts
import Foundation
import SyncContracts
import Testing

@Suite("The published OpenAPI document")
struct OpenAPIDocumentTests {
    let contract = try! OpenAPIContract.repository()

    /// The gateway's route table as shipped: prefix → whether it is public.
    func shippedRoutes() throws -> [(prefix: String, isPublic: Bool)] {
        let table = try JSONValue.parse(Data(contentsOf: ContractDocuments.gatewayRoutes))
        return (table["routes"]?.arrayValue ?? []).compactMap { route in
            guard let prefix = route["prefix"]?.stringValue else { return nil }
            return (prefix, route["public"] == .bool(true))
        }
    }

    /// The paths the gateway answers itself.
    static let gatewayOwnPaths: Set<String> = ["/health", "/health/live", "/health/ready", "/openapi.json"]

    @Test("is OpenAPI 3.1 and uses only schema keywords the contract checks understand, with every $ref resolving")
    func wellFormed() {
        #expect(contract.document["openapi"]?.stringValue == "3.1.0")
        #expect(contract.operations.count > 40)
        let unsupported = contract.unsupportedKeywords()
        #expect(unsupported.isEmpty, "\(unsupported)")
        let ids = contract.operations.map(\.id)
        #expect(Set(ids).count == ids.count, "operation ids repeat")
    }

    @Test("every route prefix of the gateway is documented, and every documented path is one the gateway routes")
    func matchesTheRouteTable() throws {
        let routes = try shippedRoutes()
        for route in routes {
            #expect(
                contract.operations.contains { $0.template == route.prefix || $0.template.hasPrefix(route.prefix + "/") },
                "no operation under \(route.prefix)")
        }
        for operation in contract.operations where !Self.gatewayOwnPaths.contains(operation.template) {
            let route = routes.filter { operation.template == $0.prefix || operation.template.hasPrefix($0.prefix + "/") }
                .max { $0.prefix.count < $1.prefix.count }
            #expect(route != nil, "\(operation.id) (\(operation.template)) is not routed by the gateway")
            if let route, !route.isPublic {
                let security = operation.object["security"] ?? contract.document["security"]
                #expect(
                    security?.arrayValue?.contains { $0["bearerAuth"] != nil } == true,
                    "\(operation.id) is behind a private route but does not declare bearerAuth")
            }
        }
    }

    @Test("answers are matched to their operation and held to it: undocumented statuses, content types and shapes are reported")
    func answersAreChecked() {
        let path = "/api/meals/0b7c8a52-9d8e-4c51-8d8f-1f2e3d4c5b6a"
        let notFound = #"{"error":{"code":"meal_not_found","message":"No such meal.","details":{},"requestId":"r-1"}}"#
        #expect(contract.operation(method: "GET", path: "/api/foods/search")?.template == "/api/foods/search")
        #expect(contract.operation(method: "GET", path: "/api/foods/01123")?.template == "/api/foods/{id}")
        #expect(contract.problems(method: "GET", path: path, status: 404, contentType: "application/json", body: Data(notFound.utf8)).isEmpty)
        #expect(!contract.problems(method: "GET", path: path, status: 200, contentType: "application/json", body: Data("{}".utf8)).isEmpty)
        #expect(!contract.problems(method: "GET", path: path, status: 418, contentType: "application/json", body: Data(notFound.utf8)).isEmpty)
        #expect(!contract.problems(method: "GET", path: path, status: 404, contentType: "text/plain", body: Data("gone".utf8)).isEmpty)
        #expect(!contract.problems(method: "PATCH", path: path, status: 200, contentType: nil, body: Data()).isEmpty)
    }

    @Test("every JSON error response is the one error shape (the gateway's health report aside)")
    func errorsUseTheErrorShape() {
        for operation in contract.operations where !Self.gatewayOwnPaths.contains(operation.template) || operation.template == "/openapi.json" {
            for (status, _) in operation.object["responses"]?.objectValue ?? [:] where status.hasPrefix("4") || status.hasPrefix("5") {
                guard let code = Int(status.prefix(1)).map({ $0 * 100 + (Int(status.dropFirst()) ?? 0) }),
                    let response = contract.response(of: operation, status: code)
                else { continue }
                guard let schema = response["content"]?["application/json"]?["schema"] else { continue }
                #expect(
                    schema["$ref"]?.stringValue == "#/components/schemas/ErrorBody",
                    "\(operation.id) \(status) does not answer with ErrorBody")
            }
        }
        let errorBody = contract.document["components"]?["schemas"]?["ErrorBody"]
        #expect(errorBody?["required"]?.arrayValue == [.string("error")])
    }
}

@Suite("The published AsyncAPI document")
struct AsyncAPIDocumentTests {
    let contract = try! AsyncAPIContract.repository()

    @Test("is AsyncAPI 3, describes every topic, and uses only checked schema keywords")
    func wellFormed() {
        #expect(contract.document["asyncapi"]?.stringValue?.hasPrefix("3.") == true)
        #expect(contract.topics == Set(Topic.allCases.map(\.rawValue)))
        let unsupported = contract.unsupportedKeywords()
        #expect(unsupported.isEmpty, "\(unsupported)")
    }

    @Test("every event the code encodes matches its topic's schema", arguments: SampleEvents.all)
    func encodedEventsMatch(sample: SampleEvents.Sample) {
        let problems = contract.problems(topic: sample.topic.rawValue, event: sample.bytes)
        #expect(problems.isEmpty, "\(problems)")
    }

    @Test("a drifted event (an unknown field, a missing one, a wrong type) does not match")
    func driftIsCaught() throws {
        let sample = try #require(SampleEvents.all.first { $0.topic == .mealDeleted })
        guard case .object(var envelope) = try JSONValue.parse(sample.bytes), case .object(let data)? = envelope["data"] else {
            Issue.record("the sample is not an object")
            return
        }
        let drifts: [(String, ([String: JSONValue]) -> [String: JSONValue])] = [
            (
                "unknown field",
                {
                    var d = $0; d["surprise"] = .bool(true); return d
                }
            ),
            (
                "missing field",
                {
                    var d = $0; d["reason"] = nil; return d
                }
            ),
            (
                "wrong type",
                {
                    var d = $0; d["version"] = .string("1"); return d
                }
            ),
        ]
        for (name, drift) in drifts {
            envelope["data"] = .object(drift(data))
            let bytes = try JSONEncoder().encode(EncodableJSON(.object(envelope)))
            #expect(!contract.problems(topic: "meal.deleted", event: bytes).isEmpty, "\(name) was not caught")
        }
    }

    @Test("the envelope's traceparent is optional, and a malformed one does not match")
    func traceparentIsOptional() throws {
        let sample = try #require(SampleEvents.all.first { $0.topic == .mealConsumed })
        guard case .object(var envelope) = try JSONValue.parse(sample.bytes) else {
            Issue.record("the sample is not an object")
            return
        }
        #expect(envelope["traceparent"] == nil)
        envelope["traceparent"] = .string(SampleEvents.traceparent)
        #expect(contract.problems(topic: "meal.consumed", event: try JSONEncoder().encode(EncodableJSON(.object(envelope)))).isEmpty)
        envelope["traceparent"] = .string("not-a-trace")
        #expect(!contract.problems(topic: "meal.consumed", event: try JSONEncoder().encode(EncodableJSON(.object(envelope)))).isEmpty)
    }

    @Test("the examples in the document match their own schemas")
    func examplesMatch() throws {
        var checked = 0
        for topic in contract.topics {
            for message in contract.messages(topic: topic) {
                for example in message["examples"]?.arrayValue ?? [] {
                    let payload = example["payload"] ?? example
                    let bytes = try JSONEncoder().encode(EncodableJSON(payload))
                    let problems = contract.problems(topic: topic, event: bytes)
                    #expect(problems.isEmpty, "example on \(topic): \(problems)")
                    checked += 1
                }
            }
        }
        #expect(checked >= Topic.allCases.count, "only \(checked) examples: every topic should show one")
    }
}

/// Re-encodes a parsed JSON value.
struct EncodableJSON: Encodable {
    let value: JSONValue
    init(_ value: JSONValue) { self.value = value }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch value {
        case .null: try container.encodeNil()
        case .bool(let flag): try container.encode(flag)
        case .number(let number): try container.encode(number)
        case .string(let text): try container.encode(text)
        case .array(let elements): try container.encode(elements.map(EncodableJSON.init))
        case .object(let members): try container.encode(members.mapValues(EncodableJSON.init))
        }
    }
}

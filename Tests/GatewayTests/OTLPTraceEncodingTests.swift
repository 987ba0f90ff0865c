import Foundation
import Testing

@testable import Gateway

/// The gateway's own OTLP trace encoding (`OTLPTraceEncoding`) read back by a second implementation: the
/// opentelemetry-proto package's generated decoder and protobuf's JSON parser (Tests/StandIns/otlp_decode.py, its
/// package installed by the test command), for both encodings OTLP/HTTP defines; and W3C `traceparent` (`TraceParent`)
/// against the specification's examples and rules.
@Suite struct OTLPTraceEncodingTests {
    static let decoderPath = ProcessInfo.processInfo.environment["NUTRITION_OTEL_PROTO_PATH"]

    static let resource = [SpanAttribute("service.name", "gateway"), SpanAttribute("service.instance.id", "gw-1")]

    /// A root server span, its client child with the caller's `tracestate`, a failed one with an integer attribute at
    /// Int64's ends, and strings that need escaping.
    static let spans: [RecordedSpan] = {
        let trace = TraceID(high: 0x4bf9_2f35_77b3_4da6, low: 0xa3ce_929d_0e0e_4736)
        let server = SpanID(value: 0x00f0_67aa_0ba9_02b7)
        return [
            RecordedSpan(
                traceId: trace, spanId: server, parentSpanId: nil, traceState: nil, name: "POST /api/meals", kind: .server,
                startNanos: 1_796_675_374_123_456_789, endNanos: 1_796_675_374_125_000_001,
                attributes: [SpanAttribute("http.request.method", "POST"), SpanAttribute("http.response.status_code", 201)], isError: false),
            RecordedSpan(
                traceId: trace, spanId: SpanID(value: 0xffff_ffff_ffff_fffe), parentSpanId: server,
                traceState: "congo=t61rcWkgMzE,rojo=00f067aa0ba902b7",
                name: "POST meals", kind: .client, startNanos: 1_796_675_374_123_500_000, endNanos: 1_796_675_374_124_900_000,
                attributes: [SpanAttribute("url.path", "/api/meals")], isError: false),
            RecordedSpan(
                traceId: TraceID(high: 1, low: 0), spanId: SpanID(value: 1), parentSpanId: SpanID(value: UInt64.max), traceState: nil,
                name: "GET /api/share/{token} \"quoted\" \\ tab\t newline\n control\u{01} é ✓ 🍎", kind: .server, startNanos: 0,
                endNanos: UInt64(Int64.max),
                attributes: [
                    SpanAttribute("http.response.status_code", 503), SpanAttribute("min", Int64.min), SpanAttribute("max", Int64.max),
                    SpanAttribute("empty", ""),
                ], isError: true),
        ]
    }()

    @Test(
        "protobuf and OTLP/JSON exports decode, with opentelemetry-proto, to the spans recorded: ids, parent, trace state, name, kind, times, attributes, status, resource, scope",
        .enabled(if: decoderPath != nil, "NUTRITION_OTEL_PROTO_PATH (the test command sets it)"))
    func decodesWithOpenTelemetryProto() throws {
        let expected = Self.spans.map(DecodedSpan.init(recorded:))
        let protobuf = try Self.decode(OTLPTraceEncoding.protobuf(Self.spans, resource: Self.resource, scope: "nutritionai.gateway"), as: "protobuf")
        #expect(protobuf == expected)
        let json = try Self.decode(OTLPTraceEncoding.json(Self.spans, resource: Self.resource, scope: "nutritionai.gateway"), as: "json")
        #expect(json == expected)
    }

    @Test("an export of no spans is a valid, empty request in both encodings", .enabled(if: decoderPath != nil))
    func emptyExport() throws {
        #expect(try Self.decode(OTLPTraceEncoding.protobuf([], resource: Self.resource, scope: "s"), as: "protobuf").isEmpty)
        #expect(try Self.decode(OTLPTraceEncoding.json([], resource: Self.resource, scope: "s"), as: "json").isEmpty)
    }

    @Test("bytes that are not an export are refused by the decoder, so the check above can fail", .enabled(if: decoderPath != nil))
    func decoderRefusesGarbage() throws {
        #expect(throws: DecoderRefused.self) { try Self.decode(Array("{\"resourceSpans\":[{\"bogus\":1}]}".utf8), as: "json") }
        #expect(throws: DecoderRefused.self) { try Self.decode([0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f], as: "protobuf") }
    }

    // MARK: - traceparent

    @Test("a traceparent of the specification's example is read, and a span's header is written the same way")
    func traceParentExample() throws {
        let header = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
        let parent = try #require(TraceParent(header: header))
        #expect(parent.traceId == TraceID(high: 0x4bf9_2f35_77b3_4da6, low: 0xa3ce_929d_0e0e_4736))
        #expect(parent.parentId == SpanID(value: 0x00f0_67aa_0ba9_02b7))
        #expect(parent.sampled)
        #expect(TraceParent.header(traceId: parent.traceId, spanId: parent.parentId, sampled: true) == header)
        #expect(TraceParent(header: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00")?.sampled == false)
        #expect(TraceParent(header: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-09")?.sampled == true, "other flag bits")
    }

    @Test(
        "a traceparent the specification refuses starts a new trace: version ff, upper case, zero ids, wrong lengths, data after a version 00",
        arguments: [
            "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
            "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",
            "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",
            "00-4bf92f3577b34da6a3ce929d0e0e473-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-1",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-what",
            "00_4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
            "0g-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
            "",
        ])
    func traceParentRefused(header: String) {
        #expect(TraceParent(header: header) == nil)
    }

    @Test("a later version's traceparent is read by its first four fields, as the specification asks")
    func laterVersion() {
        #expect(TraceParent(header: "cc-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-what-the-future-will-be-like")?.sampled == true)
        #expect(TraceParent(header: "cc-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01") != nil)
        #expect(TraceParent(header: "cc-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01.") == nil)
    }

    @Test("generated ids are never zero, do not repeat in 100,000, and a seed repeats them")
    func generatedIds() {
        var generator = TraceIdentifierGenerator()
        var seen = Set<UInt64>()
        for _ in 0..<100_000 {
            let id = generator.spanId()
            #expect(id.isValid)
            seen.insert(id.value)
        }
        #expect(seen.count == 100_000)
        var first = TraceIdentifierGenerator(seed: (1, 2, 3, 4))
        var second = TraceIdentifierGenerator(seed: (1, 2, 3, 4))
        var other = TraceIdentifierGenerator(seed: (4, 3, 2, 1))
        let firstIds = (0..<10).map { _ in first.traceId() }
        let secondIds = (0..<10).map { _ in second.traceId() }
        let otherIds = (0..<10).map { _ in other.traceId() }
        #expect(firstIds == secondIds)
        #expect(firstIds != otherIds)
    }

    // MARK: - The decoder

    struct DecoderRefused: Error, CustomStringConvertible {
        let description: String
    }

    /// What otlp_decode.py prints for one span.
    struct DecodedSpan: Decodable, Equatable {
        var resource: [String: [String: String]]
        var scope: String
        var traceId: String
        var spanId: String
        var parentSpanId: String
        var traceState: String
        var name: String
        var kind: Int
        var start: String
        var end: String
        var attributes: [[Attribute]]
        var status: Int

        /// `[key, {"string"|"int": value}]`.
        enum Attribute: Decodable, Equatable {
            case key(String)
            case value([String: String])

            init(from decoder: any Decoder) throws {
                let container = try decoder.singleValueContainer()
                if let key = try? container.decode(String.self) {
                    self = .key(key)
                } else {
                    self = .value(try container.decode([String: String].self))
                }
            }
        }

        init(recorded span: RecordedSpan) {
            resource = Dictionary(uniqueKeysWithValues: OTLPTraceEncodingTests.resource.map { ($0.key, Self.text($0.value)) })
            scope = "nutritionai.gateway"
            traceId = span.traceId.hex
            spanId = span.spanId.hex
            parentSpanId = span.parentSpanId?.hex ?? ""
            traceState = span.traceState ?? ""
            name = span.name
            kind = span.kind.rawValue
            start = String(span.startNanos)
            end = String(span.endNanos)
            attributes = span.attributes.map { [.key($0.key), .value(Self.text($0.value))] }
            status = span.isError ? 2 : 0
        }

        static func text(_ value: SpanAttribute.Value) -> [String: String] {
            switch value {
            case .string(let text): ["string": text]
            case .int(let number): ["int": String(number)]
            }
        }
    }

    static func decode(_ bytes: [UInt8], as encoding: String) throws -> [DecodedSpan] {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("otlp-\(UUID().uuidString).bin")
        try Data(bytes).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("StandIns/otlp_decode.py")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script.path, encoding, file.path]
        process.environment = ["PYTHONPATH": decoderPath ?? "", "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"]
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let printed = output.fileHandleForReading.readDataToEndOfFile()
        let complaint = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw DecoderRefused(description: complaint) }
        return try JSONDecoder().decode([DecodedSpan].self, from: printed)
    }
}

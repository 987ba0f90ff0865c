import Foundation
import ServiceDefaults

/// An OTLP `ExportTraceServiceRequest` (opentelemetry-proto, `collector/trace/v1/trace_service.proto`) of recorded
/// spans, in the two encodings OTLP/HTTP defines: binary protobuf (`application/x-protobuf`, the default) and
/// OTLP/JSON (`application/json`: protobuf's JSON mapping with the OTLP exceptions: trace and span ids as hex, enums
/// as integers). One resource (the process: `service.name` and the others) and one instrumentation scope.
/// Checked against the opentelemetry-proto package's decoder (`OTLPTraceEncodingTests`).
enum OTLPTraceEncoding {
    /// Binary protobuf, written in one pass into one array: each message's length is computed before it is written
    /// (no buffer per nested message).
    static func protobuf(_ spans: some Collection<RecordedSpan>, resource: [SpanAttribute], scope: String) -> [UInt8] {
        let resourceSize = resource.reduce(0) { $0 + ProtobufWriter.messageSize(field: 1, ProtobufWriter.keyValueSize($1)) }
        let scopeSize = ProtobufWriter.bytesSize(field: 1, scope.utf8.count)
        let spansSize = spans.reduce(0) { $0 + ProtobufWriter.messageSize(field: 2, ProtobufWriter.spanSize($1)) }
        let scopeSpansSize = ProtobufWriter.messageSize(field: 1, scopeSize) + spansSize
        let resourceSpansSize = ProtobufWriter.messageSize(field: 1, resourceSize) + ProtobufWriter.messageSize(field: 2, scopeSpansSize)
        var request = ProtobufWriter(capacity: ProtobufWriter.messageSize(field: 1, resourceSpansSize))
        request.messageHeader(1, resourceSpansSize)
        request.messageHeader(1, resourceSize)
        for attribute in resource { request.keyValue(1, attribute) }
        request.messageHeader(2, scopeSpansSize)
        request.messageHeader(1, scopeSize)
        request.string(1, scope)
        for span in spans { request.span(2, span) }
        return request.bytes
    }

    /// OTLP/JSON.
    static func json(_ spans: some Sequence<RecordedSpan>, resource: [SpanAttribute], scope: String) -> [UInt8] {
        var out = "{\"resourceSpans\":[{\"resource\":{\"attributes\":["
        out += resource.map(jsonKeyValue).joined(separator: ",")
        out += "]},\"scopeSpans\":[{\"scope\":{\"name\":\(jsonString(scope))},\"spans\":["
        var first = true
        for span in spans {
            if !first { out += "," }
            first = false
            out += "{\"traceId\":\"\(span.traceId.hex)\",\"spanId\":\"\(span.spanId.hex)\""
            if let parent = span.parentSpanId { out += ",\"parentSpanId\":\"\(parent.hex)\"" }
            if let state = span.traceState, !state.isEmpty { out += ",\"traceState\":\(jsonString(state))" }
            out += ",\"name\":\(jsonString(span.name)),\"kind\":\(span.kind.rawValue)"
            out += ",\"startTimeUnixNano\":\"\(span.startNanos)\",\"endTimeUnixNano\":\"\(span.endNanos)\""
            out += ",\"attributes\":[" + span.attributes.map(jsonKeyValue).joined(separator: ",") + "]"
            if span.isError { out += ",\"status\":{\"code\":2}" }
            out += "}"
        }
        out += "]}]}]}"
        return Array(out.utf8)
    }

    private static func jsonKeyValue(_ attribute: SpanAttribute) -> String {
        let value =
            switch attribute.value {
            case .string(let text): "{\"stringValue\":\(jsonString(text))}"
            // protobuf's JSON mapping writes 64-bit integers as strings.
            case .int(let number): "{\"intValue\":\"\(number)\"}"
            }
        return "{\"key\":\(jsonString(attribute.key)),\"value\":\(value)}"
    }

    /// `text` as a JSON string literal (`JSONLogHandler`'s escaping).
    private static func jsonString(_ text: String) -> String {
        var out = ""
        JSONLogHandler.appendString(text, to: &out)
        return out
    }
}

/// The protobuf wire format, as much of it as an OTLP trace export needs: varints, fixed64, length-delimited strings
/// and bytes, and nested messages, each preceded by its length, which the `...Size` functions compute first. Every
/// field number here is below 16, so every tag is one byte.
private struct ProtobufWriter {
    private(set) var bytes: [UInt8]

    init(capacity: Int) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    private enum WireType: UInt8 {
        case varint = 0
        case fixed64 = 1
        case lengthDelimited = 2
    }

    private mutating func tag(_ field: UInt8, _ type: WireType) { bytes.append(field << 3 | type.rawValue) }

    private mutating func varint(_ value: UInt64) {
        var value = value
        while value >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        bytes.append(UInt8(value))
    }

    static func varintSize(_ value: UInt64) -> Int { value == 0 ? 1 : (64 - value.leadingZeroBitCount + 6) / 7 }
    /// A length-delimited field of `count` bytes.
    static func bytesSize(field: UInt8, _ count: Int) -> Int { 1 + varintSize(UInt64(count)) + count }
    static func messageSize(field: UInt8, _ size: Int) -> Int { bytesSize(field: field, size) }

    /// The tag and length of a nested message of `size` bytes, whose fields follow.
    mutating func messageHeader(_ field: UInt8, _ size: Int) {
        tag(field, .lengthDelimited)
        varint(UInt64(size))
    }

    mutating func lengthDelimited(_ field: UInt8, _ payload: [UInt8]) {
        messageHeader(field, payload.count)
        bytes += payload
    }

    mutating func string(_ field: UInt8, _ text: String) {
        messageHeader(field, text.utf8.count)
        bytes += text.utf8
    }

    mutating func int(_ field: UInt8, _ value: UInt64) {
        tag(field, .varint)
        varint(value)
    }

    mutating func fixed64(_ field: UInt8, _ value: UInt64) {
        tag(field, .fixed64)
        for shift in stride(from: 0, to: 64, by: 8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
    }

    /// An `AnyValue` (`common/v1/common.proto`): string_value 1, int_value 3.
    static func anyValueSize(_ value: SpanAttribute.Value) -> Int {
        switch value {
        case .string(let text): bytesSize(field: 1, text.utf8.count)
        case .int(let number): 1 + varintSize(UInt64(bitPattern: number))
        }
    }

    /// A `KeyValue`: key 1, value 2.
    static func keyValueSize(_ attribute: SpanAttribute) -> Int {
        bytesSize(field: 1, attribute.key.utf8.count) + messageSize(field: 2, anyValueSize(attribute.value))
    }

    mutating func keyValue(_ field: UInt8, _ attribute: SpanAttribute) {
        messageHeader(field, Self.keyValueSize(attribute))
        string(1, attribute.key)
        messageHeader(2, Self.anyValueSize(attribute.value))
        switch attribute.value {
        case .string(let text): string(1, text)
        case .int(let number): int(3, UInt64(bitPattern: number))
        }
    }

    /// A `Span` (`trace/v1/trace.proto`): trace_id 1, span_id 2, trace_state 3, parent_span_id 4, name 5, kind 6,
    /// start 7, end 8, attributes 9, status 15 (code 3: `STATUS_CODE_ERROR` is 2; an unset status is left out).
    static func spanSize(_ span: RecordedSpan) -> Int {
        var size = bytesSize(field: 1, 16) + bytesSize(field: 2, 8)
        if let state = span.traceState, !state.isEmpty { size += bytesSize(field: 3, state.utf8.count) }
        if span.parentSpanId != nil { size += bytesSize(field: 4, 8) }
        size += bytesSize(field: 5, span.name.utf8.count) + 1 + varintSize(UInt64(span.kind.rawValue)) + 9 + 9
        for attribute in span.attributes { size += messageSize(field: 9, keyValueSize(attribute)) }
        if span.isError { size += messageSize(field: 15, 2) }
        return size
    }

    mutating func span(_ field: UInt8, _ span: RecordedSpan) {
        messageHeader(field, Self.spanSize(span))
        lengthDelimited(1, span.traceId.bytes)
        lengthDelimited(2, span.spanId.bytes)
        if let state = span.traceState, !state.isEmpty { string(3, state) }
        if let parent = span.parentSpanId { lengthDelimited(4, parent.bytes) }
        string(5, span.name)
        int(6, UInt64(span.kind.rawValue))
        fixed64(7, span.startNanos)
        fixed64(8, span.endNanos)
        for attribute in span.attributes { keyValue(9, attribute) }
        if span.isError {
            messageHeader(15, 2)
            int(3, 2)
        }
    }
}

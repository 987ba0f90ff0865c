import Foundation

/// A span as an OTLP receiver got it: ids in lower-case hex, the kind, and attribute values as text.
struct ReceivedSpan: Sendable, CustomStringConvertible {
    /// OTLP's `Span.SpanKind` numbers.
    enum Kind: Int, Sendable {
        case unspecified = 0, `internal`, server, client, producer, consumer
    }

    var traceId: String
    var spanId: String
    /// Empty for a root span.
    var parentSpanId: String
    var name: String
    var kind: Kind
    var attributes: [String: String]
    /// OTLP's `Status.StatusCode`: 0 unset, 1 ok, 2 error.
    var statusCode: Int

    var description: String {
        "\(name) [\(kind)] \(spanId) <- \(parentSpanId.isEmpty ? "root" : parentSpanId) \(attributes)"
    }
}

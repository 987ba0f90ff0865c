/// A finished span of the gateway's own span path, as OTLP exports it: ids, name, kind, times, attributes, and
/// whether it failed. A value, recorded on the event loop without a lock of its own or a task.
struct RecordedSpan: Equatable, Sendable {
    /// OTLP's `SpanKind` values.
    enum Kind: Int, Sendable {
        case server = 2
        case client = 3
    }

    var traceId: TraceID
    var spanId: SpanID
    /// Nil for the root of a trace.
    var parentSpanId: SpanID?
    /// The caller's `tracestate`, passed on as it came.
    var traceState: String?
    var name: String
    var kind: Kind
    /// Nanoseconds since the Unix epoch.
    var startNanos: UInt64
    var endNanos: UInt64
    var attributes: [SpanAttribute]
    /// OTLP's status `ERROR` (a 5xx answer); `UNSET` otherwise.
    var isError: Bool
}

/// One attribute of a span or of the resource.
struct SpanAttribute: Equatable, Sendable {
    enum Value: Equatable, Sendable {
        case string(String)
        case int(Int64)
    }

    var key: String
    var value: Value

    init(_ key: String, _ value: String) {
        self.key = key
        self.value = .string(value)
    }

    init(_ key: String, _ value: Int64) {
        self.key = key
        self.value = .int(value)
    }
}

import Tracing

/// The W3C trace context as the platform carries it between processes: the `traceparent` text that goes into
/// HTTP headers, outbox rows, Kafka headers and the CloudEvents envelope.
public enum TraceContext {
    /// The header (and Kafka header, and CloudEvents attribute) name.
    public static let traceparent = "traceparent"

    /// True when a tracer other than the no-op one is in charge (bootstrapped, or bound to the task in tests);
    /// every span-making step checks this first so that tracing costs nothing while it is off.
    public static var isTracing: Bool { !(InstrumentationSystem.tracer is NoOpTracer) }

    /// The `traceparent` of the current span, or nil outside any traced work.
    public static func currentTraceparent() -> String? {
        guard let context = InstrumentationContext.current else { return nil }
        return traceparent(of: context)
    }

    /// The `traceparent` of `context`, or nil when it holds no span.
    public static func traceparent(of context: InstrumentationContext) -> String? {
        var carrier: [String: String] = [:]
        InstrumentationSystem.instrument.inject(context, into: &carrier, using: TraceparentCarrier())
        return carrier[traceparent]
    }

    /// A context (`base` with a remote parent) whose parent is the span `traceparent` names, with the caller's
    /// `tracestate`; `base` alone (a new trace) when `traceparent` is missing or malformed.
    ///
    /// Only these two values reach the tracer, never a whole header set: swift-otel logs the carrier of a failed
    /// extraction, and a request's headers hold its bearer token. A malformed value is dropped here, silently.
    /// `instrument` reads it: the process's, unless the caller holds a tracer of its own (the gateway's pass-through,
    /// which makes spans on event loops, outside the task a test binds its tracer to).
    public static func context(
        traceparent value: String?, tracestate: String? = nil, base: InstrumentationContext = .topLevel,
        using instrument: any Instrument = InstrumentationSystem.instrument
    ) -> InstrumentationContext {
        var context = base
        guard let value, isWellFormed(value) else { return context }
        var carrier = [traceparent: value]
        if let tracestate { carrier["tracestate"] = tracestate }
        instrument.extract(carrier, into: &context, using: TraceparentCarrier())
        return context
    }

    /// Whether `value` has the W3C shape: `vv-<32 hex>-<16 hex>-ff` (lower-case hex; a later version may append
    /// `-...`), with neither id all zeros.
    public static func isWellFormed(_ value: String) -> Bool {
        let bytes = Array(value.utf8)
        guard bytes.count == 55 || (bytes.count > 55 && bytes[55] == UInt8(ascii: "-")) else { return false }
        let isHex = { (byte: UInt8) in (byte >= 0x30 && byte <= 0x39) || (byte >= 0x61 && byte <= 0x66) }
        for (index, byte) in bytes.prefix(55).enumerated() {
            if [2, 35, 52].contains(index) {
                guard byte == UInt8(ascii: "-") else { return false }
            } else if !isHex(byte) {
                return false
            }
        }
        let zero = UInt8(ascii: "0")
        return !bytes[3..<35].allSatisfy { $0 == zero } && !bytes[36..<52].allSatisfy { $0 == zero }
    }

    /// The trace id of `context` (32 hex digits), for log lines that should lead to their trace.
    public static func traceId(of context: InstrumentationContext) -> String? {
        guard let value = traceparent(of: context) else { return nil }
        let fields = value.split(separator: "-")
        return fields.count == 4 ? String(fields[1]) : nil
    }
}

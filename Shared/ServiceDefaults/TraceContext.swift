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

    /// A context whose parent is the span `traceparent` names; top-level (a new trace) when it is nil or malformed.
    public static func context(traceparent value: String?) -> InstrumentationContext {
        var context = InstrumentationContext.topLevel
        if let value {
            InstrumentationSystem.instrument.extract([traceparent: value], into: &context, using: TraceparentCarrier())
        }
        return context
    }

    /// The trace id of `context` (32 hex digits), for log lines that should lead to their trace.
    public static func traceId(of context: InstrumentationContext) -> String? {
        guard let value = traceparent(of: context) else { return nil }
        let fields = value.split(separator: "-")
        return fields.count == 4 ? String(fields[1]) : nil
    }
}

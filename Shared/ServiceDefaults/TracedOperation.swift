import Tracing

/// Runs a piece of work inside a span. A failure marks the span with the error's type only, never its
/// description: descriptions of database and library errors can quote SQL or user data (as in logs).
public enum TracedOperation {
    /// Runs `body` inside a new span named `name`, child of `parent` (else of the current span), and ends the span
    /// when `body` returns or throws.
    public static func run<Result: Sendable>(
        _ name: String, parent: InstrumentationContext? = nil, ofKind kind: SpanKind = .internal,
        isolation: isolated (any Actor)? = #isolation, _ body: (any Span) async throws -> Result
    ) async throws -> Result {
        let span = startSpan(name, context: parent ?? InstrumentationContext.current ?? .topLevel, ofKind: kind)
        defer { span.end() }
        do {
            return try await InstrumentationContext.$current.withValue(span.context) { try await body(span) }
        } catch {
            markFailed(span, error)
            throw error
        }
    }

    /// Marks `span` failed by `error`, naming only the error's type.
    public static func markFailed(_ span: any Span, _ error: any Error) {
        span.attributes["error.type"] = String(reflecting: type(of: error))
        span.setStatus(SpanStatus(code: .error))
    }
}

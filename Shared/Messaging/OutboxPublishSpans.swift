import Foundation
import Kafka
import ServiceDefaults
import Tracing
import WireJSON

/// The trace of one outbox publish round: a producer span per message (`publish meal.consumed`), child of the
/// work that wrote the row, whose context rides to the consumers in the message's `traceparent` header.
/// While tracing is off no span is made and a row's stored `traceparent` is passed on as it is.
struct OutboxPublishSpans {
    private var spans: [any Span] = []

    /// Starts the spans of `messages` (rows with `eventIds` and stored `traceparents`, index by index) and adds
    /// each message's `traceparent` header.
    mutating func start(_ messages: inout [OutgoingMessage], eventIds: [UUID], traceparents: [String?]) {
        let tracing = TraceContext.isTracing
        for index in messages.indices {
            var traceparent = traceparents[index]
            if tracing {
                let topic = messages[index].topic
                let span = startSpan("publish \(topic)", context: TraceContext.context(traceparent: traceparent), ofKind: .producer)
                span.attributes["messaging.system"] = "kafka"
                span.attributes["messaging.operation.type"] = "send"
                span.attributes["messaging.destination.name"] = topic
                span.attributes["messaging.message.id"] = eventIds[index].lowercasedString
                traceparent = TraceContext.traceparent(of: span.context) ?? traceparent
                spans.append(span)
            }
            if let traceparent { messages[index].headers.append(KafkaHeader(name: TraceContext.traceparent, text: traceparent)) }
        }
    }

    /// Ends every span with its message's outcome: where the broker put it, or why it was not published.
    func end(with results: [Result<DeliveryReport, KafkaError>]) {
        for (span, result) in zip(spans, results) {
            switch result {
            case .success(let report):
                span.attributes["messaging.destination.partition.id"] = String(report.partition)
                span.attributes["messaging.kafka.offset"] = Int(report.offset)
            case .failure(let error):
                TracedOperation.markFailed(span, error)
                span.attributes["error.type"] = FailureReason(error).rawValue
            }
            span.end()
        }
    }
}

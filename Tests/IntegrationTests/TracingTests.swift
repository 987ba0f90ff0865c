import EventContracts
import Foundation
import HTTPTypes
import HummingbirdTesting
import ServiceDefaults
import Testing

@testable import TrendsService

/// OpenTelemetry traces across the whole platform: every service and the gateway run in this process with a tracer
/// that exports to an in-test OTLP receiver, and the spans' parent links must tell each request's story.
@Suite("Traces through the gateway, services, outbox, topics and consumers", .serialized, .enabled(if: TestEnvironment.isAvailable))
struct TracingTests {
    /// A client-made W3C trace context: a fresh trace id and the id of the client's own (unexported) span.
    struct ClientTrace {
        let traceId = Self.randomHex(bytes: 16)
        let spanId = Self.randomHex(bytes: 8)
        var traceparent: String { "00-\(traceId)-\(spanId)-01" }

        static func randomHex(bytes: Int) -> String {
            (0..<bytes).map { _ in String(format: "%02x", UInt8.random(in: 1 ... .max)) }.joined()
        }
    }

    @Test(
        """
        one trace shows a meal from POST /api/meals through the gateway, the meals service and its SQL transaction to the outbox publish \
        and the trends consumer; sharing's photo call to meals carries the trace and the request id
        """
    )
    func tracesFollowRequestsAndEvents() async throws {
        try await OTLPTraceReceiver.run { receiver in
            try await FullStack.run(start: Date()) { stack in
                let ana = try await stack.signUp("Ana")
                try await checkMealTrace(stack: stack, receiver: receiver, user: ana)
                try await checkPhotoCopyTrace(stack: stack, receiver: receiver, user: ana)
            }
            #expect(receiver.malformedExportCount == 0, "the receiver could not read some OTLP exports")
        }
    }

    /// gateway request → gateway's upstream call → meals request → SQL transaction → publish meal.consumed → trends consumer.
    func checkMealTrace(stack: FullStack, receiver: OTLPTraceReceiver, user: JourneyUser) async throws {
        let client = ClientTrace()
        let requestId = "itest-trace-\(UUID().uuidString.prefix(8).lowercased())"
        let json = #"{"title":"Traced lunch","items":[\#(TrendsPipelineTests.item(calories: 640))]}"#
        let created = try await stack.gateway.call(
            .post, "/api/meals", json: json, token: user.token,
            headers: [HTTPField.Name("traceparent")!: client.traceparent, .requestId: requestId])
        #expect(created.status == .created, "POST /api/meals answered \(created.status)")
        let trends = try await stack.gateway.eventually("/api/trends?period=7d", token: user.token, as: TrendsReport.self) {
            $0.days.last?.calories == 640
        }
        #expect(trends.days.last?.calories == 640, "the trends day summary never showed the meal")

        // Spans are exported when they end, in batches of each process's own exporter: wait until the trends
        // consumer's span and the publish span it continues have both arrived (the consumer's may come first).
        let arrived = try await TestEnvironment.eventually(timeout: .seconds(30)) {
            let spans = receiver.spans(inTrace: client.traceId)
            return spans.contains { consumer in
                Self.isTrendsApplyingMeal(consumer) && spans.contains { $0.spanId == consumer.parentSpanId && $0.kind == .producer }
            }
        }
        let spans = receiver.spans(inTrace: client.traceId)
        #expect(arrived, "the trends consumer's span never reached the receiver; spans of the trace: \(spans)")

        let gateway = try #require(spans.first { $0.parentSpanId == client.spanId }, "no span continues the client's traceparent: \(spans)")
        #expect(gateway.kind == .server && gateway.attributes["url.path"] == "/api/meals" && gateway.attributes["http.response.status_code"] == "201")
        let proxy = try #require(Self.child(of: gateway, in: spans) { $0.kind == .client }, "no upstream call under the gateway's span")
        #expect(proxy.name == "POST meals")
        let meals = try #require(Self.child(of: proxy, in: spans) { $0.kind == .server }, "the meals service's span is not the upstream call's child")
        #expect(meals.name == "POST /api/meals" && meals.attributes["request_id"] == requestId)
        let transaction = try #require(
            Self.child(of: meals, in: spans) { $0.name == "SQL transaction" }, "no SQL transaction under the meals request: \(spans)")
        #expect(transaction.attributes["db.system.name"] == "postgresql")
        let publish = try #require(
            Self.child(of: transaction, in: spans) { $0.kind == .producer && $0.name == "publish meal.consumed" },
            "the outbox publish of meal.consumed is not the transaction's child: \(spans)")
        #expect(publish.attributes["messaging.destination.name"] == "meal.consumed" && publish.statusCode != 2)
        let consumer = try #require(
            Self.child(of: publish, in: spans, where: Self.isTrendsApplyingMeal),
            "the trends consumer's span is not the publish span's child: \(spans)")
        #expect(consumer.kind == .consumer)
        #expect(consumer.attributes["messaging.message.id"] == publish.attributes["messaging.message.id"])

        // On the wire (once the test's own reader has it): the envelope names where the event was made, the
        // transaction, and the contract allows the attribute; the header, the publish span, is what the consumer
        // continued (its parent above).
        try await stack.checkEvents(of: [user.id], covering: [.mealConsumed])
        let wire = stack.events.events(keyedBy: [user.idPath]).filter { $0.topic == Topic.mealConsumed.rawValue }
        let headers = try wire.map { try EventCoding.header(of: $0.value) }
        #expect(
            headers.contains { $0.traceparent == "00-\(client.traceId)-\(transaction.spanId)-01" },
            "no meal.consumed envelope carries the transaction's traceparent: \(headers.map(\.traceparent))")
    }

    /// gateway request → sharing request → sharing's call to meals → meals' photo request, with the client's request id.
    func checkPhotoCopyTrace(stack: FullStack, receiver: OTLPTraceReceiver, user: JourneyUser) async throws {
        let meal = try await stack.analyzePhotoLeavingScanned(token: user.token)
        // Wait until sharing holds the meal, so the traced share below is answered at its first attempt.
        let ready = try await stack.gateway.shareWhenReady(meal.id, json: "{}", token: user.token)
        #expect(ready.status == .created, "share answered \(ready.status)")

        let client = ClientTrace()
        let requestId = "itest-photo-\(UUID().uuidString.prefix(8).lowercased())"
        let shared = try await stack.gateway.call(
            .post, "/api/share/meal/\(meal.id.uuidString.lowercased())", json: #"{"includePhoto":true}"#, token: user.token,
            headers: [HTTPField.Name("traceparent")!: client.traceparent, .requestId: requestId])
        #expect(shared.status == .created, "share with photo answered \(shared.status): \(String(buffer: shared.body))")

        // The gateway's span ends last (it spans the whole request), so it may be exported after the photo span.
        let arrived = try await TestEnvironment.eventually(timeout: .seconds(30)) {
            let spans = receiver.spans(inTrace: client.traceId)
            return spans.contains { $0.name == "GET /api/meals/{id}/photo" } && spans.contains { $0.parentSpanId == client.spanId }
        }
        let spans = receiver.spans(inTrace: client.traceId)
        #expect(arrived, "the meals service's photo span or the gateway's span never reached the receiver; spans of the trace: \(spans)")
        let gateway = try #require(spans.first { $0.parentSpanId == client.spanId }, "no span continues the client's traceparent: \(spans)")
        let proxy = try #require(Self.child(of: gateway, in: spans) { $0.kind == .client })
        let sharing = try #require(Self.child(of: proxy, in: spans) { $0.kind == .server })
        #expect(sharing.name == "POST /api/share/meal/{id}" && sharing.attributes["request_id"] == requestId)
        let call = try #require(Self.child(of: sharing, in: spans) { $0.kind == .client }, "no call to meals under the share request: \(spans)")
        #expect(call.name == "GET meals")
        let photo = try #require(Self.child(of: call, in: spans) { $0.kind == .server }, "the meals photo request is not the call's child: \(spans)")
        #expect(photo.name == "GET /api/meals/{id}/photo" && photo.attributes["http.response.status_code"] == "200")
        #expect(photo.attributes["request_id"] == requestId, "the call to meals did not carry the share request's X-Request-Id")
    }

    static func child(of parent: ReceivedSpan, in spans: [ReceivedSpan], where matches: (ReceivedSpan) -> Bool) -> ReceivedSpan? {
        spans.first { $0.parentSpanId == parent.spanId && matches($0) }
    }

    /// The trends service's span of applying a `meal.consumed` (a batch that rolled back leaves one that did not apply).
    static func isTrendsApplyingMeal(_ span: ReceivedSpan) -> Bool {
        span.name == "process meal.consumed" && span.attributes["messaging.consumer.group.name"]?.hasPrefix("itest-trends") == true
            && span.attributes["inbox.result"] == "applied"
    }
}

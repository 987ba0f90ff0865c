import BackendKit
import EventContracts
import Foundation
import Hummingbird
import HummingbirdTesting
import Kafka
import Messaging
import PostgresNIO
import PostgresSupport
import ServiceDefaults
import Testing

/// `EventFlowTracker`'s rules on made-up samples: when events count as degraded, and when they recover.
@Suite("When events count as degraded")
struct EventFlowTrackerTests {
    let start = ContinuousClock.now

    func partition(lag: Int64?, processed: Int64?) -> ConsumerStatus {
        ConsumerStatus(
            assigned: [.init(topic: "meal.analyzed", partition: 0, lag: lag, processedOffset: processed)])
    }

    @Test("an outbox row unsent for longer than the threshold degrades events; a younger one does not")
    func oldUnsentRow() {
        var tracker = EventFlowTracker(stuckAfter: .seconds(30))
        let young = [OutboxBacklog(topic: "meal.analyzed", unsent: 12, oldestAge: .seconds(29))]
        #expect(tracker.assess(backlog: young, consumers: [], now: start).state == .up)
        let old = [OutboxBacklog(topic: "meal.analyzed", unsent: 12, oldestAge: .seconds(31))]
        let verdict = tracker.assess(backlog: old, consumers: [], now: start)
        #expect(verdict.state == .degraded)
        #expect(verdict.reasons == ["outbox meal.analyzed: 12 rows unsent, the oldest for 31 s"])
        #expect(tracker.assess(backlog: nil, consumers: [], now: start).state == .up, "an unreadable outbox is postgres' check's to report")
    }

    @Test("a consumer without partitions is waiting, degrades events once the threshold has passed, and recovers when assigned")
    func unassignedConsumer() {
        var tracker = EventFlowTracker(stuckAfter: .seconds(10))
        let unassigned = ConsumerStatus(assigned: [])
        let joining = tracker.assess(backlog: [], consumers: [("trends", unassigned)], now: start)
        #expect(joining.state == .waiting)
        #expect(joining.waitingGroups == ["trends"])
        #expect(tracker.assess(backlog: [], consumers: [("trends", unassigned)], now: start + .seconds(9)).state == .waiting)
        #expect(tracker.assess(backlog: [], consumers: [("trends", unassigned)], now: start + .seconds(10)).state == .degraded)
        let assigned = partition(lag: 0, processed: 5)
        #expect(tracker.assess(backlog: [], consumers: [("trends", assigned)], now: start + .seconds(11)).state == .up)
        // Losing the partitions again (a rebalance) starts a new wait.
        #expect(tracker.assess(backlog: [], consumers: [("trends", unassigned)], now: start + .seconds(12)).state == .waiting)
        // A finding elsewhere outranks the wait.
        let stuckOutbox = [OutboxBacklog(topic: "meal.analyzed", unsent: 1, oldestAge: .seconds(30))]
        #expect(tracker.assess(backlog: stuckOutbox, consumers: [("trends", unassigned)], now: start + .seconds(13)).state == .degraded)
    }

    @Test("lag that does not shrink degrades events; progress, or no lag, does not")
    func stalledPartition() {
        var tracker = EventFlowTracker(stuckAfter: .seconds(10))
        #expect(tracker.assess(backlog: [], consumers: [("trends", partition(lag: 4, processed: 10))], now: start).state == .up)
        // Progress within the window restarts it.
        #expect(tracker.assess(backlog: [], consumers: [("trends", partition(lag: 9, processed: 12))], now: start + .seconds(8)).state == .up)
        #expect(tracker.assess(backlog: [], consumers: [("trends", partition(lag: 9, processed: 12))], now: start + .seconds(17)).state == .up)
        let stuck = tracker.assess(backlog: [], consumers: [("trends", partition(lag: 9, processed: 12))], now: start + .seconds(18))
        #expect(stuck.state == .degraded)
        #expect(stuck.reasons.first?.contains("meal.analyzed[0] 9 behind") == true)
        // A consumer that never finished a message, with lag, is stuck as well.
        var fresh = EventFlowTracker(stuckAfter: .seconds(10))
        _ = fresh.assess(backlog: [], consumers: [("sharing", partition(lag: 3, processed: nil))], now: start)
        #expect(fresh.assess(backlog: [], consumers: [("sharing", partition(lag: 3, processed: nil))], now: start + .seconds(10)).state == .degraded)
        // Caught up: no lag, nothing stuck however long the position stays.
        #expect(fresh.assess(backlog: [], consumers: [("sharing", partition(lag: 0, processed: 7))], now: start + .seconds(60)).state == .up)
        #expect(fresh.assess(backlog: [], consumers: [("sharing", partition(lag: 0, processed: 7))], now: start + .seconds(90)).state == .up)
    }

    @Test("parked events degrade events at once, per topic, and nothing parked is up again")
    func parkedEvents() {
        var tracker = EventFlowTracker(stuckAfter: .seconds(30))
        let parked = [
            ParkedBacklog(group: "trends", topic: "meal.consumed", parked: 2), ParkedBacklog(group: "trends", topic: "weight.logged", parked: 0),
        ]
        let verdict = tracker.assess(backlog: [], consumers: [], parked: parked, now: start)
        #expect(verdict.state == .degraded)
        #expect(verdict.reasons == ["consumer group trends: 2 meal.consumed events parked (see parked_events)"])
        #expect(tracker.assess(backlog: [], consumers: [], parked: [], now: start + .seconds(1)).state == .up)
    }
}

@Suite("A stuck relay shows in readiness and metrics", .enabled(if: TestEnvironment.isAvailable), .serialized)
struct StuckRelayTests {
    let logger = TestEnvironment.logger

    @Test("a service with consumers says events: waiting from its start, before the monitor's first sample")
    func waitingBeforeTheFirstSample() async throws {
        let kafka = KafkaConfiguration(bootstrapServers: TestEnvironment.brokers, clientId: "itest-waiting")
        let monitor = EventFlowMonitor(
            outbox: nil, publishedTopics: [], settings: EventFlowSettings(stuckAfter: .seconds(30), sampleInterval: .seconds(2)),
            logger: logger)
        #expect(await monitor.state() == .up, "nothing to wait for")
        let consumer = try KafkaConsumer(
            configuration: kafka, groupId: "itest-waiting-\(UUID().uuidString.prefix(8))", topics: [Topic.userDeleted.rawValue],
            logger: logger)
        monitor.watch(consumer)
        #expect(await monitor.state() == .waiting)
        #expect(monitor.verdict.waitingGroups == [consumer.groupId])
    }

    /// A row the broker can never take (larger than the largest message) stays unsent however often the relay
    /// retries: the relay is stuck on it, which is what operators must see.
    @Test("an unpublishable outbox row makes readiness say events: degraded (still 200) and shows in the gauges, until it is gone")
    func stuckRelayIsReported() async throws {
        PrometheusMetrics.bootstrap()
        let settings = try TestEnvironment.postgresSettings(schema: "itest_producer")
        let kafka = KafkaConfiguration(bootstrapServers: TestEnvironment.brokers, clientId: "itest-stuck", deliveryTimeout: .seconds(3))
        try await withPostgres(settings) { db in
            try await emptySchema(db)
            try await MigrationRunner(client: db, schema: "itest_producer", logger: logger).apply(Migration.publishing)
            let poison = UUID()
            try await db.query(
                """
                INSERT INTO outbox (event_id, topic, message_key, payload)
                VALUES (\(poison), 'user.deleted', 'stuck', decode(repeat('00', 1500000), 'hex'))
                """, logger: logger)
            let producer = try KafkaProducer(configuration: kafka, logger: logger)
            let relay = OutboxRelay(
                client: db, producer: producer, schema: "itest_producer",
                settings: OutboxRelaySettings(pollInterval: .milliseconds(200), maxBackoff: .milliseconds(500)), logger: logger)
            let monitor = EventFlowMonitor(
                outbox: db, publishedTopics: [Topic.userDeleted.rawValue],
                settings: EventFlowSettings(stuckAfter: .seconds(1), sampleInterval: .milliseconds(200)), logger: logger)
            let topics = TopicSetup(producer: producer, topics: [Topic.userDeleted.rawValue], partitions: 3, logger: logger)
            let app = Application(router: ServiceRuntime.makeRouter(service: "itest", checks: [monitor]))

            try await withRunning([producer, topics, relay, monitor]) {
                let degraded = try await TestEnvironment.eventually(timeout: .seconds(30)) { await monitor.state() == .degraded }
                try #require(degraded, "events stayed up with a row stuck in the outbox")
                #expect(monitor.verdict.reasons.contains { $0.hasPrefix("outbox user.deleted: 1 rows unsent") }, "\(monitor.verdict.reasons)")
                try await app.test(.router) { client in
                    try await client.execute(uri: "/health/ready", method: .get) { response in
                        #expect(response.status == .ok, "degraded events must not take the service out of rotation")
                        let report = try JSONDecoder().decode(HealthController.Report.self, from: Data(buffer: response.body))
                        #expect(report.status == "degraded")
                        #expect(report.checks["events"] == "degraded")
                    }
                }
                let metrics = String(decoding: PrometheusMetrics.registry.emitToBuffer(), as: UTF8.self)
                #expect(metrics.contains(#"outbox_unsent_rows{topic="user.deleted"} 1"#), "\(metrics)")
                #expect(metrics.contains(#"events_flow_degraded 1"#))
                let age = try #require(gauge(#"outbox_oldest_unsent_age_seconds{topic="user.deleted"}"#, in: metrics))
                #expect(age >= 1)
                #expect(metrics.contains("outbox_publish_failures_total{reason="), "the relay's failures are not counted")

                // The operator removes the row (or it becomes publishable): events flow and readiness says so.
                try await db.query("DELETE FROM outbox WHERE event_id = \(poison)", logger: logger)
                let recovered = try await TestEnvironment.eventually(timeout: .seconds(30)) { await monitor.state() == .up }
                #expect(recovered, "events stayed degraded after the stuck row was removed")
                let after = String(decoding: PrometheusMetrics.registry.emitToBuffer(), as: UTF8.self)
                #expect(after.contains(#"outbox_unsent_rows{topic="user.deleted"} 0"#))
                #expect(after.contains(#"events_flow_degraded 0"#))
            }
        }
    }

    /// The value of the sample named `series` (name and labels) in Prometheus text, if present.
    func gauge(_ series: String, in text: String) -> Double? {
        text.split(separator: "\n").first { $0.hasPrefix(series + " ") }.flatMap { Double($0.split(separator: " ").last ?? "") }
    }
}

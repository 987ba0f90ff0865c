import BackendKit
import EventContracts
import Foundation
import Hummingbird
import HummingbirdTesting
import Kafka
import Logging
import Messaging
import PostgresNIO
import PostgresSupport
import ServiceDefaults
import Testing

/// `user.deleted` as a producer deployed before its consumers would send it after a breaking change: version 2, with
/// a field version 1 does not have.
struct UserDeletedV2: EventPayload {
    static let topic = Topic.userDeleted
    static let schemaVersion = 2
    var userId: UUID
    var deletedAt: Date
    var requestedBy: String
}

/// A version 1 consumer of `user.deleted`: one row per applied event in `applied`, in the order they were applied.
struct AppliesVersion1: EventHandler {
    func handle(_ event: ReceivedEvent, on connection: PostgresConnection, logger: Logger) async throws {
        let userId = try event.payload(UserDeleted.self).userId
        try await connection.query("INSERT INTO applied (event_id, user_id) VALUES (\(event.header.id), \(userId))", logger: logger)
    }
}

/// The same consumer after its upgrade: it reads version 2 and still version 1, which older producers keep sending.
struct AppliesVersions1And2: EventHandler {
    func handle(_ event: ReceivedEvent, on connection: PostgresConnection, logger: Logger) async throws {
        let userId =
            event.header.dataschemaversion == UserDeletedV2.schemaVersion
            ? try event.payload(UserDeletedV2.self).userId : try event.payload(UserDeleted.self).userId
        try await connection.query("INSERT INTO applied (event_id, user_id) VALUES (\(event.header.id), \(userId))", logger: logger)
    }
}

@Suite("A consumer parks the events it cannot apply, and applies them after an upgrade", .enabled(if: TestEnvironment.isAvailable), .serialized)
struct ParkedEventsTests {
    let logger = TestEnvironment.logger

    func resetSchema(_ db: PostgresPool) async throws {
        try await emptySchema(db)
        try await MigrationRunner(client: db, schema: "itest_consumer", logger: logger).apply(
            Migration.consuming + [
                Migration(
                    name: "0001_applied.sql", sql: "CREATE TABLE applied (seq bigserial PRIMARY KEY, event_id uuid NOT NULL, user_id uuid NOT NULL);")
            ])
    }

    /// The bytes of a `user.deleted` of `userId`, at `version`, with `extraData` added to `data`.
    func event(_ id: UUID, userId: UUID, version: Int, extraData: [String: String] = [:]) throws -> [UInt8] {
        let envelope = EventEnvelope(
            source: "auth", subject: userId.uuidString.lowercased(), data: UserDeleted(userId: userId, deletedAt: Date()), id: id)
        var json = try #require(try JSONSerialization.jsonObject(with: Data(try EventCoding.encode(envelope))) as? [String: Any])
        var data = try #require(json["data"] as? [String: Any])
        for (key, value) in extraData { data[key] = value }
        json["data"] = data
        json["dataschemaversion"] = version
        return Array(try JSONSerialization.data(withJSONObject: json, options: [.sortedKeys]))
    }

    /// A topic of this run's own: the broker may still hold other tests' `user.deleted` events (and earlier runs' of these).
    let topic = "itest.parked.\(UUID().uuidString.prefix(8).lowercased())"

    func send(_ bytes: [UInt8], key: UUID, with producer: KafkaProducer) async throws {
        _ = try await producer.send(OutgoingMessage(topic: topic, key: key.uuidString.lowercased(), value: bytes))
    }

    func applied(in db: PostgresPool) async throws -> [UUID] {
        var ids: [UUID] = []
        for try await id in try await db.query("SELECT event_id FROM applied ORDER BY seq").decode(UUID.self) { ids.append(id) }
        return ids
    }

    func parked(in db: PostgresPool) async throws -> [(eventId: UUID, version: Int?, reason: String, attempts: Int)] {
        var rows: [(eventId: UUID, version: Int?, reason: String, attempts: Int)] = []
        let query: PostgresQuery = "SELECT event_id, dataschemaversion, reason, attempts FROM parked_events ORDER BY seq"
        for try await row in try await db.query(query).decode((UUID, Int?, String, Int).self) { rows.append(row) }
        return rows
    }

    /// Whether `/health/ready` answers 200, and its `events` check.
    func readiness(of monitor: EventFlowMonitor) async throws -> (isOK: Bool, events: String?) {
        let app = Application(router: ServiceRuntime.makeRouter(service: "itest", checks: [monitor]))
        return try await app.test(.router) { client in
            try await client.execute(uri: "/health/ready", method: .get) { response in
                let report = try JSONDecoder().decode(HealthController.Report.self, from: Data(buffer: response.body))
                return (response.status == .ok, report.checks["events"])
            }
        }
    }

    func makeMonitor(watching consumer: KafkaConsumer, in db: PostgresPool) -> EventFlowMonitor {
        let monitor = EventFlowMonitor(
            outbox: nil, publishedTopics: [], settings: EventFlowSettings(stuckAfter: .seconds(60), sampleInterval: .milliseconds(200)),
            logger: logger)
        monitor.watch(consumer, parkedEventsIn: db)
        return monitor
    }

    @Test("a v2 event reaches a v1 consumer: parked with the user's later event, readiness degraded; after the upgrade both apply once, in order")
    func versionTwoEventWaitsForTheUpgrade() async throws {
        PrometheusMetrics.bootstrap()
        let settings = try TestEnvironment.postgresSettings(schema: "itest_consumer")
        let kafka = KafkaConfiguration(bootstrapServers: TestEnvironment.brokers, clientId: "itest-parked")
        let group = "itest-parked-\(UUID().uuidString.prefix(8))"
        let (alice, bob, carol) = (UUID(), UUID(), UUID())
        let (newer, behind, unknownField, beforeGarbage) = (UUID(), UUID(), UUID(), UUID())
        try await withPostgres(settings) { db in
            try await resetSchema(db)
            let producer = try KafkaProducer(configuration: kafka, logger: logger)
            try await withRunning([producer]) {
                try await producer.createTopics([topic], partitions: 3)
                let versionTwo = try event(newer, userId: alice, version: 2, extraData: ["requestedBy": "user"])
                try await send(versionTwo, key: alice, with: producer)
                try await send(try event(behind, userId: alice, version: 1), key: alice, with: producer)
                try await send(try event(unknownField, userId: bob, version: 1, extraData: ["requestedBy": "support"]), key: bob, with: producer)
                // Carol's event is read before her unreadable message: it must not wait behind what came after it.
                try await send(try event(beforeGarbage, userId: carol, version: 1), key: carol, with: producer)
                try await send(Array("not an event".utf8), key: carol, with: producer)

                // 1. The v1 consumer: Bob's event (with a field it does not know) applies; Alice's v2 event is parked and
                //    her v1 event behind it; the unreadable message is parked too. Nothing is skipped.
                let consumer = try KafkaConsumer(configuration: kafka, groupId: group, topics: [topic], logger: logger)
                let monitor = makeMonitor(watching: consumer, in: db)
                let v1 = InboxConsumer(client: db, consumer: consumer, handler: AppliesVersion1(), logger: logger, maxBackoff: .seconds(1))
                try await withRunning([v1, monitor]) {
                    let settled = try await TestEnvironment.eventually(timeout: .seconds(60)) {
                        let (parkedNow, appliedNow) = (try await parked(in: db), try await applied(in: db))
                        return parkedNow.count == 3 && Set(appliedNow) == [unknownField, beforeGarbage]
                    }
                    let (parkedNow, appliedNow) = (try await parked(in: db), try await applied(in: db))
                    try #require(settled, "parked: \(parkedNow), applied: \(appliedNow)")
                    let rows = try await parked(in: db)
                    let newerRow = try #require(rows.firstIndex { $0.eventId == newer })
                    let behindRow = try #require(rows.firstIndex { $0.eventId == behind })
                    #expect(newerRow < behindRow, "parked out of order")
                    #expect(rows[newerRow].version == 2)
                    #expect(rows[newerRow].reason.contains("dataschemaversion 2"), "\(rows[newerRow].reason)")
                    #expect(rows[behindRow].reason.contains("behind"), "Alice's later event must wait for her first")
                    #expect(rows.contains { $0.version == nil && $0.reason == "unreadable envelope" })

                    // A redelivery of a parked event is a duplicate: still one parked row, nothing applied.
                    try await send(versionTwo, key: alice, with: producer)
                    try await send(try event(UUID(), userId: bob, version: 1), key: bob, with: producer)
                    let bobAgain = try await TestEnvironment.eventually(timeout: .seconds(30)) { try await applied(in: db).count == 3 }
                    #expect(bobAgain)
                    #expect(try await parked(in: db).count == 3)

                    let degraded = try await TestEnvironment.eventually(timeout: .seconds(10)) { await monitor.state() == .degraded }
                    #expect(degraded, "readiness did not report the parked events")
                    #expect(monitor.verdict.reasons.contains { $0 == "consumer group \(group): 3 \(topic) events parked (see parked_events)" })
                    let ready = try await readiness(of: monitor)
                    #expect(ready.isOK, "parked events must not take the service out of rotation: it still serves reads")
                    #expect(ready.events == "degraded")
                    let metrics = String(decoding: PrometheusMetrics.registry.emitToBuffer(), as: UTF8.self)
                    #expect(metrics.contains(#"events_parked{group="\#(group)",topic="\#(topic)"} 3"#), "\(metrics)")
                    #expect(metrics.contains(#"events_parked_total{group="\#(group)",topic="\#(topic)"} 3"#))
                }

                // 2. The upgrade: a consumer that reads version 2, in the same group, applies the parked events at start,
                //    each once and Alice's in order. The unreadable message stays parked for an operator.
                let upgradedConsumer = try KafkaConsumer(configuration: kafka, groupId: group, topics: [topic], logger: logger)
                let upgradedMonitor = makeMonitor(watching: upgradedConsumer, in: db)
                let v2 = InboxConsumer(
                    client: db, consumer: upgradedConsumer, handler: AppliesVersions1And2(), logger: logger, maxBackoff: .seconds(1),
                    parkedRetryInterval: .milliseconds(500))
                try await withRunning([v2, upgradedMonitor]) {
                    let upgraded = try await TestEnvironment.eventually(timeout: .seconds(30)) { try await parked(in: db).count == 1 }
                    let stillParked = try await parked(in: db)
                    try #require(upgraded, "parked after the upgrade: \(stillParked)")
                    let order = try await applied(in: db)
                    #expect(order.filter { $0 == newer }.count == 1 && order.filter { $0 == behind }.count == 1, "\(order)")
                    let first = try #require(order.firstIndex(of: newer)), second = try #require(order.firstIndex(of: behind))
                    #expect(first < second, "Alice's events applied out of order")
                    let retried = try await TestEnvironment.eventually(timeout: .seconds(10)) { try await parked(in: db).first?.attempts ?? 0 > 1 }
                    #expect(retried, "the unreadable message was not retried")
                    #expect(await upgradedMonitor.state() == .degraded)

                    // The operator gives up on the unreadable message (docs/OPERATIONS.md): events are up again.
                    try await db.query("DELETE FROM parked_events WHERE event_type IS NULL", logger: logger)
                    let recovered = try await TestEnvironment.eventually(timeout: .seconds(10)) { await upgradedMonitor.state() == .up }
                    #expect(recovered, "events stayed degraded with nothing parked")
                    #expect(try await readiness(of: upgradedMonitor).events == "up")
                    let metrics = String(decoding: PrometheusMetrics.registry.emitToBuffer(), as: UTF8.self)
                    #expect(metrics.contains(#"events_parked{group="\#(group)",topic="\#(topic)"} 0"#))
                    #expect(metrics.contains(#"events_unparked_total{group="\#(group)",topic="\#(topic)"} 2"#))
                }
                #expect(try await applied(in: db).count == 5, "every readable event applied exactly once")
            }
        }
    }
}

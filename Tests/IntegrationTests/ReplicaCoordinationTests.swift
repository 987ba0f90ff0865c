import EventContracts
import Foundation
import Kafka
import Logging
import Messaging
import PostgresNIO
import PostgresSupport
import ServiceDefaults
import ServiceLifecycle
import Synchronization
import Testing

@testable import BackendKit

/// What keeps N replicas of a service from stepping on each other in their shared schema: one relay publishing at a
/// time, and one replica running each round of a scheduled job. Real PostgreSQL and broker.
@Suite("Replicas sharing a schema, on the real PostgreSQL and broker", .enabled(if: TestEnvironment.isAvailable), .serialized)
struct ReplicaCoordinationTests {
    let logger = TestEnvironment.logger

    @Test("two relays on one outbox publish each user's events in the order they were written")
    func relaysKeepPerUserOrder() async throws {
        let kafka = KafkaConfiguration(
            bootstrapServers: TestEnvironment.brokers, clientId: "itest-relays", deliveryTimeout: .seconds(5),
            metadataRefreshInterval: .seconds(1))
        try await withPostgres(try TestEnvironment.postgresSettings(schema: "itest_producer")) { outbox in
            try await emptySchema(outbox)
            try await MigrationRunner(client: outbox, schema: "itest_producer", logger: logger).apply(Migration.publishing)
            // A backlog first, so that both relays start on it together: small batches give them many chances to overlap.
            let users = (0..<4).map { _ in UUID() }
            for round in 0..<150 {
                try await outbox.transaction(logger: logger) { connection in
                    for user in users {
                        let event = EventEnvelope(
                            source: "itest", subject: user.uuidString,
                            data: UserDeleted(userId: user, deletedAt: Date(timeIntervalSince1970: Double(round))))
                        try await Outbox.append(event, on: connection, logger: logger)
                    }
                }
            }
            let settings = OutboxRelaySettings(batchSize: 10, pollInterval: .milliseconds(50), maxBackoff: .seconds(1))
            var services: [any Service] = []
            for _ in 0..<2 {
                let producer = try KafkaProducer(configuration: kafka, logger: logger)
                services += [
                    producer,
                    OutboxRelay(client: outbox, producer: producer, schema: "itest_producer", settings: settings, logger: logger),
                ]
            }
            try await withRunning(services) {
                let drained = try await TestEnvironment.eventually(timeout: .seconds(60)) {
                    try await outbox.query("SELECT count(*) FROM outbox WHERE sent_at IS NULL").decode(Int64.self).first { _ in true } == 0
                }
                #expect(drained, "the relays did not publish the backlog")
            }
            // A user's events share a partition (the key is the user); their offsets must rise with the outbox order.
            let rows = try await outbox.query(
                "SELECT message_key, kafka_partition, kafka_offset FROM outbox ORDER BY id"
            ).decode((String, Int32, Int64).self)
            var last: [String: (partition: Int32, offset: Int64)] = [:]
            var outOfOrder = 0
            var published = 0
            for try await (key, partition, offset) in rows {
                published += 1
                if let previous = last[key], previous.partition != partition || previous.offset >= offset { outOfOrder += 1 }
                last[key] = (partition, offset)
            }
            #expect(published == 600)
            #expect(outOfOrder == 0, "\(outOfOrder) events reached Kafka before an earlier event of the same user")
        }
    }

    @Test("of replicas that wake together, one runs the scheduled round; the next round is claimable once its interval passed")
    func oneReplicaRunsEachRound() async throws {
        try await withPostgres(try TestEnvironment.postgresSettings(schema: "itest_producer")) { schema in
            try await emptySchema(schema)
            try await MigrationRunner(client: schema, schema: "itest_producer", logger: logger).apply([Migration.scheduledJobs])
            let runs = Atomic<Int>(0)
            let opened = StartupLatch()
            opened.open()
            let replicas = (0..<6).map { _ in
                PeriodicJob(
                    name: "purge", every: .seconds(3600), rounds: ScheduledRounds(client: schema), startAfter: opened, logger: logger
                ) { _ in runs.add(1, ordering: .relaxed) }
            }
            func roundOnEveryReplica() async {
                await withTaskGroup(of: Void.self) { group in
                    for replica in replicas { group.addTask { await replica.runRound(logger: logger) } }
                }
            }
            await roundOnEveryReplica()
            #expect(runs.load(ordering: .relaxed) == 1, "six replicas woke together; exactly one must run the round")
            await roundOnEveryReplica()
            #expect(runs.load(ordering: .relaxed) == 1, "the round of this interval already ran")

            // The interval passes (the last start moved back an hour): the next round runs once more.
            try await schema.query("UPDATE scheduled_jobs SET last_started_at = last_started_at - interval '3600 seconds'")
            await roundOnEveryReplica()
            #expect(runs.load(ordering: .relaxed) == 2)

            // Another job's rounds are its own.
            let other = try await ScheduledRounds(client: schema).claim("retention", every: .seconds(3600), logger: logger)
            #expect(other)
        }
    }
}

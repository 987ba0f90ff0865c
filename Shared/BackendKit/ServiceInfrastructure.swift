import Configuration
import EventContracts
import Foundation
import Kafka
import Logging
import Messaging
import PostgresNIO
import PostgresSupport
import ServiceDefaults
import ServiceLifecycle

/// The parts every backend service is built on: its Postgres client, its Kafka producer, the outbox relay
/// when it publishes, topic creation, the readiness checks and the start-up migrations.
/// Each service's composition root creates one and adds its own controllers and consumers.
public struct ServiceInfrastructure: Sendable {
    public let name: String
    public let postgres: PostgresPool
    public let postgresSettings: PostgresSettings
    public let kafka: KafkaConfiguration
    public let producer: KafkaProducer
    /// Long-lived parts in start order; they stop in reverse.
    public let services: [any Service]
    public let readinessChecks: [any ReadinessCheck]
    /// Keeps serving for a moment after SIGTERM; runs after the HTTP server (`BackendApplication.runnable`).
    public let shutdownGrace: ShutdownGrace
    /// Opens once the migrations are applied; consumers and the relay wait for it.
    public let migrated = StartupLatch()
    /// Watches the outbox and the consumers: the `events` readiness check and the event-flow gauges.
    public let eventFlow: EventFlowMonitor
    let migrations: [Migration]
    /// Partitions of the topics this service creates (`KAFKA_TOPIC_PARTITIONS`).
    let topicPartitions: Int32
    /// Most events the inbox applies in one transaction (`INBOX_BATCH_SIZE`).
    let inboxBatchLimit: Int
    /// How often the inbox retries its parked events, besides at start (`INBOX_PARKED_RETRY_SECONDS`).
    let parkedRetryInterval: Duration
    let startupTimeout: Duration
    let logger: Logger

    /// - Parameters:
    ///   - publishes: the topics this service writes through its outbox (empty: no outbox, no relay).
    ///   - uses: the topics it reads; created at start along with `publishes`.
    ///   - consumes: whether the schema needs an inbox.
    ///   - kitTables: further kit tables the service uses (`Migration.sync`, `Migration.idempotencyKeys`).
    ///   - migrationsDirectory: the service's numbered SQL files, applied after the kit's tables.
    public init(
        name: String, config: ConfigReader, publishes: [Topic], uses: [Topic], consumes: Bool,
        kitTables: [Migration] = [], migrationsDirectory: URL?, logger: Logger
    ) throws {
        self.name = name
        self.logger = logger
        self.postgresSettings = try PostgresSettings(config: config, defaultSchema: name, defaultUser: "\(name)_service")
        self.postgres = PostgresPool(settings: postgresSettings, logger: logger)
        self.kafka = KafkaConfiguration(config: config, clientId: name)
        self.producer = try KafkaProducer(configuration: kafka, logger: logger)
        self.startupTimeout = .seconds(config.double(forKey: "startup.timeout.seconds", default: 120))
        // Larger than the old 200 so that a backlog costs fewer transactions once handlers apply batches set-based:
        // trends drained deploy/bench/trends.sh's 20,000 events at about 9,000/s with 1,000 (other sizes not measured).
        // At live rates a batch holds only what is already fetched, far fewer.
        self.inboxBatchLimit = config.int(forKey: "inbox.batch.size", default: 1000)
        self.parkedRetryInterval = .seconds(config.double(forKey: "inbox.parked.retry.seconds", default: 60))

        var migrations: [Migration] = []
        if !publishes.isEmpty { migrations += Migration.publishing }
        if consumes { migrations += Migration.consuming }
        migrations += kitTables
        migrations.append(Migration.scheduledJobs)
        if let migrationsDirectory { migrations += try Migration.load(from: migrationsDirectory) }
        self.migrations = migrations

        let partitions = Int32(config.int(forKey: "kafka.topic.partitions", default: 3))
        self.topicPartitions = partitions
        var services: [any Service] = [
            postgres, producer,
            TopicSetup(producer: producer, topics: Set(publishes + uses).map(\.rawValue).sorted(), partitions: partitions, logger: logger),
        ]
        if !publishes.isEmpty {
            services.append(
                OutboxRelay(
                    client: postgres, producer: producer, schema: postgresSettings.schema,
                    settings: OutboxRelaySettings(config: config), startAfter: migrated, logger: logger))
        }
        self.eventFlow = EventFlowMonitor(
            outbox: publishes.isEmpty ? nil : postgres, publishedTopics: publishes.map(\.rawValue),
            settings: EventFlowSettings(config: config), logger: logger)
        services.append(eventFlow)
        self.services = services
        let producer = self.producer
        self.shutdownGrace = ShutdownGrace(config: config)
        self.readinessChecks = [
            PostgresReadinessCheck(client: postgres),
            ClosureReadinessCheck(name: "kafka") { await producer.isBrokerReachable() },
            eventFlow,
            shutdownGrace,
        ]
    }

    /// The service's inbox: a member of consumer group `group` reading `topics`, applying each event once with
    /// `handler` after the migrations ran, parking what it cannot apply, watched by the `events` readiness check (which
    /// says `degraded` while anything is parked). Run it among the service's parts.
    public func makeInbox(group: String, topics: [Topic], handler: any EventHandler) throws -> InboxConsumer {
        let consumer = try KafkaConsumer(
            configuration: kafka, groupId: group, topics: topics.map(\.rawValue), logger: logger, createMissingTopics: topicPartitions)
        eventFlow.watch(consumer, parkedEventsIn: postgres)
        return InboxConsumer(
            client: postgres, consumer: consumer, handler: handler, logger: logger, batchLimit: inboxBatchLimit,
            startAfter: migrated, parkedRetryInterval: parkedRetryInterval)
    }

    /// A job that runs every `interval` once the migrations ran, each round on one replica only (`ScheduledRounds`).
    public func periodicJob(
        name: String, every interval: Duration, work: @escaping @Sendable (Logger) async throws -> Void
    ) -> PeriodicJob {
        PeriodicJob(name: name, every: interval, rounds: ScheduledRounds(client: postgres), startAfter: migrated, logger: logger, work: work)
    }

    /// Applies the schema's migrations, retrying while the database is unreachable, for at most the start-up timeout.
    public func migrate() async throws {
        let runner = MigrationRunner(client: postgres, schema: postgresSettings.schema, logger: logger)
        let deadline = ContinuousClock.now + startupTimeout
        try await Backoff.retrying(
            Backoff(initial: .milliseconds(250), maximum: .seconds(5)),
            isRetryable: { _ in ContinuousClock.now < deadline },
            onFailure: { error, wait in
                logger.warning(
                    "database not ready for migrations; retrying",
                    metadata: ["error": .string(LogSafeError.describe(error)), "retry_in": "\(wait)"])
            }
        ) { try await runner.apply(migrations) }
        migrated.open()
    }
}

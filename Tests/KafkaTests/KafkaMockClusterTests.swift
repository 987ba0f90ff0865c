import Foundation
@_spi(Testing) import Kafka
import Logging
import Testing

/// Round trips through librdkafka's in-process mock cluster: fast, and exercises the real client code.
@Suite("Kafka wrapper against librdkafka's mock cluster")
struct KafkaMockClusterTests {
    let logger = Logger(label: "kafka-tests")

    func configuration() -> KafkaConfiguration {
        // The mock cluster answers no admin requests, so its topics come from auto-creation, which our
        // producer otherwise turns off.
        KafkaConfiguration(
            bootstrapServers: "", clientId: "kafka-tests",
            extraProperties: ["test.mock.num.brokers": "1", "allow.auto.create.topics": "true"])
    }

    @Test("send reports the partition and increasing offsets for each delivered message")
    func sendReportsOffsets() async throws {
        let producer = try KafkaProducer(configuration: configuration(), logger: logger)
        try await withProducerRunning(producer) {
            let first = try await producer.send(OutgoingMessage(topic: "orders", key: "u1", value: Array("a".utf8)))
            let second = try await producer.send(OutgoingMessage(topic: "orders", key: "u1", value: Array("b".utf8)))
            #expect(first.topic == "orders")
            #expect(second.partition == first.partition)
            #expect(second.offset == first.offset + 1)
        }
    }

    @Test("a batch keeps the order of one key's messages")
    func batchKeepsOrder() async throws {
        let producer = try KafkaProducer(configuration: configuration(), logger: logger)
        try await withProducerRunning(producer) {
            let messages = (0..<50).map { OutgoingMessage(topic: "ordered", key: "same-user", value: Array("\($0)".utf8)) }
            let reports = try await producer.sendBatch(messages).map { try $0.get() }
            #expect(reports.count == 50)
            #expect(Set(reports.map(\.partition)).count == 1)
            #expect(reports.map(\.offset) == Array(reports[0].offset..<reports[0].offset + 50))
        }
    }

    @Test("an invalid property fails at creation and names the property")
    func invalidPropertyIsNamed() {
        var bad = configuration()
        bad.extraProperties["no.such.property"] = "1"
        #expect(throws: KafkaError.self) { try KafkaProducer(configuration: bad, logger: logger) }
        do {
            _ = try KafkaProducer(configuration: bad, logger: logger)
        } catch let error as KafkaError {
            #expect(error.description.contains("no.such.property"))
        } catch {
            Issue.record("unexpected error \(error)")
        }
    }

    @Test("delivery to an unreachable broker fails within the delivery timeout instead of hanging")
    func unreachableBrokerFails() async throws {
        let unreachable = KafkaConfiguration(bootstrapServers: "127.0.0.1:1", clientId: "kafka-tests", deliveryTimeout: .milliseconds(500))
        let producer = try KafkaProducer(configuration: unreachable, logger: logger)
        try await withProducerRunning(producer) {
            let result = await producer.sendBatch([OutgoingMessage(topic: "t", key: "k", value: [1])])
            guard case .failure(.deliveryFailed) = result[0] else {
                Issue.record("expected a delivery failure, got \(result[0])")
                return
            }
            #expect(await producer.isBrokerReachable(timeout: .milliseconds(300)) == false)
        }
    }

    @Test("a producer that hit a fatal error delivers again once renewed, as the relay does after ProducerRecovery")
    func renewRecoversFromFatalError() async throws {
        let producer = try KafkaProducer(configuration: configuration(), logger: logger)
        try await withProducerRunning(producer) {
            _ = try await producer.send(OutgoingMessage(topic: "fatal", key: "k", value: [1]))
            producer.raiseFatalErrorForTesting()
            let failed = await producer.sendBatch([OutgoingMessage(topic: "fatal", key: "k", value: [2])])[0]
            guard case .failure(let error) = failed else {
                Issue.record("a producer in a fatal state still delivered")
                return
            }
            #expect(ProducerRecovery.after(error) == .replaceProducer, "\(error)")
            try await producer.renew(reason: FailureReason(error))
            let report = try await producer.send(OutgoingMessage(topic: "fatal", key: "k", value: [3]))
            #expect(report.topic == "fatal")
        }
    }

    @Test("the loaded librdkafka is new enough to talk to current brokers")
    func libraryVersionIsSupported() throws {
        try LibrdkafkaVersion.requireSupported()
        #expect(LibrdkafkaVersion.loaded.split(separator: ".").count == 3)
    }

    /// Runs the producer's poll loop around `body`, then stops it.
    func withProducerRunning(_ producer: KafkaProducer, _ body: () async throws -> Void) async throws {
        let loop = Task { try await producer.run() }
        defer { loop.cancel() }
        try await body()
    }
}

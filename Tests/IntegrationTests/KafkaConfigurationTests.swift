import BackendKit
import Foundation
import Kafka
import PostgresSupport
import TestSupport
import Testing

/// How a service's Kafka settings come out of its configuration: dynamic group membership unless asked otherwise.
@Suite("Kafka settings from the configuration")
struct KafkaConfigurationTests {
    let host = ProcessInfo.processInfo.hostName

    func settings(_ values: [String: String]) -> KafkaConfiguration {
        KafkaConfiguration(config: ConfigReaderFactory.make(values), clientId: "itest")
    }

    @Test("membership is dynamic by default, so a killed replica's partitions move once its session ends")
    func dynamicByDefault() {
        #expect(settings(["http.port": "8084"]).groupInstanceId == nil)
        #expect(settings([:]).groupInstanceId == nil)
        #expect(settings(["kafka.group.instance.id": "none"]).groupInstanceId == nil)
        #expect(settings(["kafka.group.instance.id": ""]).groupInstanceId == nil)
    }

    @Test("a configured id wins; `auto` derives one per host and port, so a restart keeps it and replicas differ")
    func configuredInstanceId() {
        #expect(settings(["kafka.group.instance.id": "pod-7", "http.port": "8084"]).groupInstanceId == "pod-7")
        #expect(settings(["kafka.group.instance.id": "auto", "http.port": "8084"]).groupInstanceId == "\(host)-8084")
        #expect(settings(["kafka.group.instance.id": "auto", "http.port": "9084"]).groupInstanceId == "\(host)-9084")
        #expect(settings(["kafka.group.instance.id": "auto"]).groupInstanceId == host, "a service on its own default port")
        #expect(settings(["kafka.group.instance.id": "auto", "http.port": "0"]).groupInstanceId == nil)
    }

    @Test("the session timeout is 4 s unless configured otherwise")
    func sessionTimeout() {
        #expect(settings([:]).sessionTimeout == .seconds(4))
        #expect(settings(["kafka.session.timeout.seconds": "10.5"]).sessionTimeout == .milliseconds(10_500))
    }

    @Test("a stopping consumer waits 3 s to leave its group unless configured otherwise; 0 does not wait, a negative is 0")
    func closeWait() {
        #expect(settings([:]).consumerCloseWait == .seconds(3))
        #expect(settings(["kafka.consumer.close.wait.seconds": "0"]).consumerCloseWait == .zero)
        #expect(settings(["kafka.consumer.close.wait.seconds": "-2"]).consumerCloseWait == .zero)
        #expect(settings(["kafka.consumer.close.wait.seconds": "0.5"]).consumerCloseWait == .milliseconds(500))
    }
}

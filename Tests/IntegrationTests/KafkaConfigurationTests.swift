import BackendKit
import Foundation
import Kafka
import PostgresSupport
import TestSupport
import Testing

/// How a service's Kafka settings come out of its configuration: static group membership by default.
@Suite("Kafka settings from the configuration")
struct KafkaConfigurationTests {
    let host = ProcessInfo.processInfo.hostName

    func settings(_ values: [String: String]) -> KafkaConfiguration {
        KafkaConfiguration(config: ConfigReaderFactory.make(values), clientId: "itest")
    }

    @Test("the static membership id is stable per host and port, so a restart keeps it and replicas differ")
    func defaultInstanceId() {
        #expect(settings(["http.port": "8084"]).groupInstanceId == "\(host)-8084")
        #expect(settings(["http.port": "9084"]).groupInstanceId == "\(host)-9084")
        #expect(settings([:]).groupInstanceId == host, "a service on its own default port")
    }

    @Test("a configured id wins; `none` or a random port gives dynamic membership")
    func configuredInstanceId() {
        #expect(settings(["kafka.group.instance.id": "pod-7", "http.port": "8084"]).groupInstanceId == "pod-7")
        #expect(settings(["kafka.group.instance.id": "none"]).groupInstanceId == nil)
        #expect(settings(["http.port": "0"]).groupInstanceId == nil)
    }

    @Test("the session timeout is 6 s unless configured otherwise")
    func sessionTimeout() {
        #expect(settings([:]).sessionTimeout == .seconds(6))
        #expect(settings(["kafka.session.timeout.seconds": "10.5"]).sessionTimeout == .milliseconds(10_500))
    }
}

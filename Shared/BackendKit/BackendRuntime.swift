import Configuration
import Kafka
import Logging
import ServiceDefaults

/// The whole body of a backend service's `main`: `ServiceRuntime.main` after what a process with librdkafka must do
/// first (`KafkaProcess.prepare`).
public enum BackendRuntime {
    public static func main(service: String, build: @Sendable (ConfigReader, Logger) async throws -> RunnableService) async {
        KafkaProcess.prepare()
        await ServiceRuntime.main(service: service, build: build)
    }
}

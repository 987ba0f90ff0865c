import BackendKit
import ServiceDefaults

/// Entry point of the metrics service: daily body metrics (weight, ketones).
@main
struct MetricsServiceMain {
    static func main() async {
        await BackendRuntime.main(service: "metrics") { config, logger in
            try buildApplication(config: config, logger: logger).runnable
        }
    }
}

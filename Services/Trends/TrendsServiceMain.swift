import BackendKit
import ServiceDefaults

/// Entry point of the trends service: read models built only from events.
@main
struct TrendsServiceMain {
    static func main() async {
        await BackendRuntime.main(service: "trends") { config, logger in
            try buildApplication(config: config, logger: logger).runnable
        }
    }
}

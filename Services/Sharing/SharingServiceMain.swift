import BackendKit
import ServiceDefaults

/// Entry point of the sharing service: expiring share links and meal snapshots.
@main
struct SharingServiceMain {
    static func main() async {
        await BackendRuntime.main(service: "sharing") { config, logger in
            try buildApplication(config: config, logger: logger).runnable
        }
    }
}

import BackendKit
import ServiceDefaults

/// Entry point of the auth service: accounts, sessions, profiles and goals.
@main
struct AuthServiceMain {
    static func main() async {
        await BackendRuntime.main(service: "auth") { config, logger in
            try await buildApplication(config: config, logger: logger).runnable
        }
    }
}

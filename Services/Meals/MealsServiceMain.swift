import BackendKit
import ServiceDefaults

/// Entry point of the meals service: meal analysis, the food table and the meal lifecycle.
@main
struct MealsServiceMain {
    static func main() async {
        await BackendRuntime.main(service: "meals") { config, logger in
            try await buildApplication(config: config, logger: logger).runnable
        }
    }
}

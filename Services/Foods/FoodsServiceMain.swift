import BackendKit
import ServiceDefaults

/// Entry point of the foods service: the food catalog (USDA foods and packaged products by barcode).
@main
struct FoodsServiceMain {
    static func main() async {
        await BackendRuntime.main(service: "foods") { config, logger in
            try await buildApplication(config: config, logger: logger).runnable
        }
    }
}

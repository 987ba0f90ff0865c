import ServiceDefaults

/// Entry point of the gateway: the only public door, routing `/api/...` to the services.
@main
struct GatewayMain {
    static func main() async {
        await ServiceRuntime.main(service: "gateway") { config, logger in
            try buildApplication(config: config, logger: logger)
        }
    }
}

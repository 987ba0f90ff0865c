import NIOCore
import NIOPosix
import ServiceDefaults

/// Entry point of the gateway: the only public door, routing `/api/...` to the services.
@main
struct GatewayMain {
    static func main() async {
        // Run Swift concurrency on NIO's event loops: a proxied request then stays on the thread that owns
        // its connections instead of hopping to the cooperative pool and back at every await.
        _ = NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor()
        await ServiceRuntime.main(service: "gateway") { config, logger in
            try buildApplication(config: config, logger: logger)
        }
    }
}

import AsyncHTTPClient
import Logging
import NIOPosix
import ServiceLifecycle

/// Keeps an outgoing HTTP client's connection pool for the life of the process and closes it on shutdown
/// (the gateway's upstream client, the meals service's vision provider client).
public struct HTTPClientService: Service {
    public let client: HTTPClient

    public init(client: HTTPClient) {
        self.client = client
    }

    /// A client on the shared event loop group with `configuration`.
    public init(configuration: HTTPClient.Configuration = .init()) {
        self.init(client: HTTPClient(eventLoopGroup: MultiThreadedEventLoopGroup.singleton, configuration: configuration))
    }

    public func run() async throws {
        try? await gracefulShutdown()
        try await client.shutdown()
    }
}

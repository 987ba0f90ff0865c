import AsyncHTTPClient
import ServiceLifecycle

/// Keeps the upstream HTTP client's connection pool for the life of the process and closes it on shutdown.
struct HTTPClientService: Service {
    let client: HTTPClient

    func run() async throws {
        try? await gracefulShutdown()
        try await client.shutdown()
    }
}

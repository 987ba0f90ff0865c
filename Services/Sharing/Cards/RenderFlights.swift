import NIOCore

/// Joins concurrent requests for the same card render, so a burst of link-preview fetches of a new link starts one
/// `rsvg-convert`, not one per request. The render goes on when the request that started it is cancelled: the
/// others still wait for it, and the result is kept for the next ones.
actor RenderFlights {
    private var running: [String: Task<ByteBuffer, any Error>] = [:]

    /// The result of the render under way for `key`, or of `render` started now when none is.
    func run(_ key: String, _ render: @escaping @Sendable () async throws -> ByteBuffer) async throws -> ByteBuffer {
        if let flight = running[key] { return try await flight.value }
        let flight = Task { try await render() }
        running[key] = flight
        defer { running[key] = nil }
        return try await flight.value
    }
}

import NIOCore

/// Joins concurrent requests for the same card render, so a burst of link-preview fetches of a new link starts one
/// `rsvg-convert`, not one per request. The render goes on when the request that started it is cancelled: the
/// others still wait for it, and the result is kept for the next ones.
actor RenderFlights {
    private var running: [String: Task<ByteBuffer, any Error>] = [:]
    private var joiners: [String: Int] = [:]

    /// The result of the render under way for `key`, or of `render` started now when none is.
    func run(_ key: String, _ render: @escaping @Sendable () async throws -> ByteBuffer) async throws -> ByteBuffer {
        if let flight = running[key] {
            joiners[key, default: 0] += 1
            defer { joiners[key, default: 1] -= 1 }
            return try await flight.value
        }
        let flight = Task { try await render() }
        running[key] = flight
        defer { running[key] = nil }
        return try await flight.value
    }

    /// Requests waiting for the render under way for `key`, besides the one that started it.
    func waiting(for key: String) -> Int { joiners[key] ?? 0 }

    /// Whether a render for `key` is under way.
    func isRendering(_ key: String) -> Bool { running[key] != nil }
}

import PostgresNIO
import ServiceDefaults

/// Ready when the database answers `SELECT 1` within the timeout.
public struct PostgresReadinessCheck: ReadinessCheck {
    public let name = "postgres"
    let client: PostgresPool
    let timeout: Duration

    public init(client: PostgresPool, timeout: Duration = .seconds(2)) {
        self.client = client
        self.timeout = timeout
    }

    public func state() async -> ReadinessState {
        await isReachable() ? .up : .down
    }

    private func isReachable() async -> Bool {
        await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                do {
                    try await client.query("SELECT 1")
                    return true
                } catch {
                    return false
                }
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
    }
}

/// One dependency whose health decides whether the service is ready (its database, its broker).
public protocol ReadinessCheck: Sendable {
    /// The name shown in `/health/ready`, e.g. `postgres`.
    var name: String { get }
    /// True when the dependency answers now. Must return within a couple of seconds.
    func isReady() async -> Bool
}

/// A readiness check made from a closure, for dependencies that expose a probe function.
public struct ClosureReadinessCheck: ReadinessCheck {
    public let name: String
    private let probe: @Sendable () async -> Bool

    public init(name: String, probe: @escaping @Sendable () async -> Bool) {
        self.name = name
        self.probe = probe
    }

    public func isReady() async -> Bool { await probe() }
}

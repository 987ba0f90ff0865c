/// One dependency whose health decides whether the service is ready (its database, its broker, its events).
public protocol ReadinessCheck: Sendable {
    /// The name shown in `/health/ready`, e.g. `postgres`.
    var name: String { get }
    /// The dependency's state now. Must return within a couple of seconds.
    func state() async -> ReadinessState
}

extension ReadinessCheck {
    /// True unless the dependency is down (a degraded one still lets the service work).
    public func isReady() async -> Bool { await state() != .down }
}

/// A readiness check made from a closure, for dependencies that expose an up-or-down probe function.
public struct ClosureReadinessCheck: ReadinessCheck {
    public let name: String
    private let probe: @Sendable () async -> Bool

    public init(name: String, probe: @escaping @Sendable () async -> Bool) {
        self.name = name
        self.probe = probe
    }

    public func state() async -> ReadinessState { await probe() ? .up : .down }
}

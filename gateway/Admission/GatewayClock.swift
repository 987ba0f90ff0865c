import Foundation

/// The gateway's sense of time: wall-clock for token expiry, monotonic for rate-limit windows.
/// Tests substitute fixed or advancing clocks.
struct GatewayClock: Sendable {
    var date: @Sendable () -> Date
    var instant: @Sendable () -> ContinuousClock.Instant

    static let system = GatewayClock(date: { Date() }, instant: { ContinuousClock.now })
}

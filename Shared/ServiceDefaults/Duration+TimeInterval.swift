import Foundation

extension Duration {
    /// The duration in seconds, for `Date` arithmetic.
    public var timeInterval: TimeInterval {
        TimeInterval(components.seconds) + TimeInterval(components.attoseconds) / 1e18
    }
}

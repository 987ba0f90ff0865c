import Foundation

/// Think time between a user's actions: exponential with the given mean (a phone user reading the screen), or
/// none for a saturation run.
struct ThinkTime: Sendable {
    let mean: Double

    func next() -> Double { mean > 0 ? -mean * log(1 - Double.random(in: 0..<1)) : 0 }

    /// The pause before a user's first action: uniform over a mean think time (over one second without think time).
    func rampDelay() -> Double { Double.random(in: 0..<(mean > 0 ? mean : 1)) }
}

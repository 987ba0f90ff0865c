import Synchronization

/// Keeps the latency and status of every call that started inside the measured window, by route template,
/// and the first few answers of each kind of failure (for reproductions). Calls of the warm-up are not kept.
final class Recorder: Sendable {
    /// What one route collected: every latency (exact percentiles come from sorting them) and the statuses.
    struct RouteSamples: Sendable {
        var nanoseconds: [Int64] = []
        var statuses: [Int: Int] = [:]
    }

    /// A failed answer kept as an example: route, status and the start of its body (which names the request id).
    struct FailureExample: Sendable {
        var route: String
        var status: Int
        var excerpt: String
    }

    private struct State {
        var routes: [String: RouteSamples] = [:]
        var examples: [String: [FailureExample]] = [:]
    }

    static let examplesPerKind = 3

    let windowStart: ContinuousClock.Instant
    let windowEnd: ContinuousClock.Instant
    private let state = Mutex(State())

    init(windowStart: ContinuousClock.Instant, windowEnd: ContinuousClock.Instant) {
        self.windowStart = windowStart
        self.windowEnd = windowEnd
    }

    /// Keeps the call when it started inside the window.
    func record(_ route: String, answer: Answer, started: ContinuousClock.Instant, finished: ContinuousClock.Instant) {
        guard started >= windowStart, started < windowEnd else { return }
        let elapsed = (finished - started).components
        let nanoseconds = elapsed.seconds * 1_000_000_000 + elapsed.attoseconds / 1_000_000_000
        state.withLock { state in
            state.routes[route, default: RouteSamples()].nanoseconds.append(nanoseconds)
            state.routes[route, default: RouteSamples()].statuses[answer.status, default: 0] += 1
            guard !answer.isSuccess else { return }
            let kind = "\(route) \(answer.status)"
            if state.examples[kind, default: []].count < Self.examplesPerKind {
                state.examples[kind, default: []].append(FailureExample(route: route, status: answer.status, excerpt: answer.excerpt))
            }
        }
    }

    /// Everything kept so far, by route.
    var routes: [String: RouteSamples] { state.withLock { $0.routes } }

    /// The kept examples of failed answers, grouped by route and status.
    var failureExamples: [FailureExample] {
        state.withLock { state in state.examples.keys.sorted().flatMap { state.examples[$0] ?? [] } }
    }
}

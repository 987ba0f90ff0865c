/// The figures of one step of a saturation run (`--steps`): how many users sent without think time, what they got
/// through, how long it took, how busy the machine was and what a request cost the stack.
struct SaturationStep: Sendable {
    var users: Int
    var requestsPerSecond: Double
    /// Milliseconds over all requests of the window.
    var p50: Double
    var p99: Double
    /// The share of all cores' time busy during the window, in percent (the generator included).
    var busyPercent: Double
    /// The CPU of every process of the stack per request, in milliseconds; nil when no process was named.
    var stackMillisecondsPerRequest: Double?
    /// Answers that were neither 2xx nor an intended 429.
    var unexpected: Int
}

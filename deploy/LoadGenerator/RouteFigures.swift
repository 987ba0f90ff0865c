/// A group of routes' figures in a `LoadSummary`: count, requests per second and latencies in milliseconds.
struct RouteFigures: Encodable {
    var count: Int
    var perSecond: Double
    var p50: Double
    var p95: Double
    var p99: Double
    var max: Double

    /// The figures of `statistics`.
    init(_ statistics: RouteStatistics) {
        count = statistics.count
        perSecond = statistics.perSecond
        p50 = statistics.p50
        p95 = statistics.p95
        p99 = statistics.p99
        max = statistics.max
    }
}

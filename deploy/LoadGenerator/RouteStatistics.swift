/// The figures of one route (or of a group of routes) over the measured window: exact percentiles by sorting
/// every latency (nearest rank), throughput, and the answers by status class.
struct RouteStatistics: Sendable, Encodable {
    var name: String
    var count: Int
    var perSecond: Double
    var p50: Double
    var p95: Double
    var p99: Double
    var max: Double
    var success: Int
    var tooMany: Int
    /// Answers that are neither 2xx nor 429, including calls that got no answer (status 0).
    var other: Int
    var statuses: [Int: Int]

    /// What a `LoadSummary` gives of a group of routes: count, requests per second and latencies in milliseconds.
    enum CodingKeys: String, CodingKey {
        case count, perSecond, p50, p95, p99, max
    }

    /// Latencies in milliseconds.
    init(name: String, samples: [Recorder.RouteSamples], windowSeconds: Double) {
        self.name = name
        var latencies: [Int64] = []
        var statuses: [Int: Int] = [:]
        for sample in samples {
            latencies += sample.nanoseconds
            statuses.merge(sample.statuses, uniquingKeysWith: +)
        }
        latencies.sort()
        count = latencies.count
        perSecond = Double(count) / windowSeconds
        p50 = Self.percentile(0.50, of: latencies)
        p95 = Self.percentile(0.95, of: latencies)
        p99 = Self.percentile(0.99, of: latencies)
        max = Double(latencies.last ?? 0) / 1e6
        success = statuses.filter { (200..<300).contains($0.key) }.values.reduce(0, +)
        tooMany = statuses[429] ?? 0
        other = count - success - tooMany
        self.statuses = statuses
    }

    /// The nearest-rank percentile `fraction` of sorted nanoseconds, in milliseconds (0 when empty).
    static func percentile(_ fraction: Double, of sorted: [Int64]) -> Double {
        guard !sorted.isEmpty else { return 0 }
        let rank = Int((fraction * Double(sorted.count)).rounded(.up))
        return Double(sorted[Swift.max(0, Swift.min(sorted.count - 1, rank - 1))]) / 1e6
    }
}

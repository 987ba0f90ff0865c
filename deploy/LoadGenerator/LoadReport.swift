import Foundation

/// The table of one run: per route count, throughput, p50/p95/p99/max and answers by status class, then reads,
/// writes and everything together, then the seed's bar and our goals with MET / NOT MET, and examples of every
/// unexpected answer (their bodies carry the request id to find in the logs).
struct LoadReport {
    let options: LoadOptions
    let recorder: Recorder
    let windowSeconds: Double
    let machine: String
    /// The stack's CPU per request and memory (`StackProcesses`), when its processes were named.
    var stack: [String] = []
    /// The share of all cores' time busy during the window, in percent.
    var busyPercent: Double = .nan
    /// The CPU of every process of the stack per request, in milliseconds, when its processes were named.
    var stackMillisecondsPerRequest: Double?
    /// The same by part, when the stack's processes were named.
    var stackMillisecondsPerRequestByPart: [String: Double] = [:]

    /// The run's figures as one step of a saturation run.
    var saturationStep: SaturationStep {
        let all = RouteStatistics(name: "all requests", samples: Array(recorder.routes.values), windowSeconds: windowSeconds)
        return SaturationStep(
            users: options.users, requestsPerSecond: all.perSecond, p50: all.p50, p99: all.p99, busyPercent: busyPercent,
            stackMillisecondsPerRequest: stackMillisecondsPerRequest, unexpected: unexpectedCount)
    }

    /// The run's figures for scripts (`--summary-file`).
    var summary: LoadSummary {
        let routes = recorder.routes
        let reads = routes.filter { $0.key.hasPrefix("GET ") }.map(\.value)
        let writes = routes.filter { !$0.key.hasPrefix("GET ") }.map(\.value)
        return LoadSummary(
            label: options.label ?? "load run", users: options.users, windowSeconds: windowSeconds,
            reads: RouteStatistics(name: "reads", samples: reads, windowSeconds: windowSeconds),
            writes: RouteStatistics(name: "writes", samples: writes, windowSeconds: windowSeconds),
            all: RouteStatistics(name: "all", samples: Array(routes.values), windowSeconds: windowSeconds),
            unexpectedAnswers: unexpectedCount, stackCPUMillisecondsPerRequest: stackMillisecondsPerRequest,
            stackCPUMillisecondsPerRequestByPart: stackMillisecondsPerRequestByPart)
    }

    /// The answers that were neither 2xx nor an intended 429.
    var unexpectedCount: Int {
        statistics.reduce(0) { total, route in
            total + route.other + (Action.intendedRateLimitedRoutes.contains(route.name) ? 0 : route.tooMany)
        }
    }

    private var statistics: [RouteStatistics] {
        recorder.routes.map { RouteStatistics(name: $0.key, samples: [$0.value], windowSeconds: windowSeconds) }
    }

    /// The report as text.
    func render() -> String {
        let routes = recorder.routes
        let isRead = { (route: String) in route.hasPrefix("GET ") }
        let rows = statistics.sorted { (isRead($0.name) ? 0 : 1, -$0.count, $0.name) < (isRead($1.name) ? 0 : 1, -$1.count, $1.name) }
        let reads = RouteStatistics(name: "all reads (GET)", samples: routes.filter { isRead($0.key) }.map(\.value), windowSeconds: windowSeconds)
        let writes = RouteStatistics(name: "all writes", samples: routes.filter { !isRead($0.key) }.map(\.value), windowSeconds: windowSeconds)
        let all = RouteStatistics(name: "all requests", samples: Array(routes.values), windowSeconds: windowSeconds)
        let think = options.think > 0 ? String(format: "exponential think time, mean %.1f s", options.think) : "no think time (saturation)"

        var lines = [
            "",
            "== \(options.label ?? "load run"): \(options.users) concurrent users through \(options.gateway), "
                + String(format: "%.0f s measured after %.0f s warm-up, ", windowSeconds, options.warmup) + think + " ==",
            row("route", "count", "req/s", "p50 ms", "p95 ms", "p99 ms", "max ms", "2xx", "429", "other"),
        ]
        lines += rows.map(format)
        lines.append(String(repeating: "-", count: 118))
        lines += [reads, writes, all].map(format)
        lines.append("")
        let bar50 = options.users == 50 ? "" : " (set for 50 users; shown for comparison)"
        lines.append(
            verdict(
                "seed 000 US-020, 50 concurrent users, p95 under 2 s\(bar50)", measured: String(format: "all requests p95 %.1f ms", all.p95),
                met: all.p95 < 2000))
        lines.append(
            verdict(
                "goal: reads p99 at most 25 ms at 50 users\(bar50)", measured: String(format: "reads p99 %.1f ms", reads.p99), met: reads.p99 <= 25))
        let intended = statistics.filter { Action.intendedRateLimitedRoutes.contains($0.name) }.reduce(0) { $0 + $1.tooMany }
        lines.append(
            verdict(
                "goal: no error other than intended 429s",
                measured: "\(unexpectedCount) unexpected answers; \(intended) intended 429s (sign-ins over the auth limit)", met: unexpectedCount == 0
            ))
        lines.append(
            String(format: "throughput: %.1f requests/s, %.2f per user per second; ", all.perSecond, all.perSecond / Double(options.users)) + machine)
        lines += stack
        lines.append("latencies are from sending a request to the last byte of its answer, over every answer of the route (2xx or not)")
        lines += unexpectedDetails(rows)
        return lines.joined(separator: "\n")
    }

    private func format(_ route: RouteStatistics) -> String {
        row(
            route.name, "\(route.count)", String(format: "%.1f", route.perSecond), ms(route.p50), ms(route.p95), ms(route.p99), ms(route.max),
            "\(route.success)", "\(route.tooMany)", "\(route.other)")
    }

    private func ms(_ value: Double) -> String { String(format: value < 100 ? "%.1f" : "%.0f", value) }

    private func row(_ name: String, _ columns: String...) -> String {
        name.padding(toLength: 40, withPad: " ", startingAt: 0) + columns.map { String(repeating: " ", count: max(1, 8 - $0.count)) + $0 }.joined()
    }

    private func verdict(_ what: String, measured: String, met: Bool) -> String {
        "\(met ? "MET    " : "NOT MET") \(what): \(measured)"
    }

    /// Status counts of the unexpected answers by route, and the kept examples of them.
    private func unexpectedDetails(_ rows: [RouteStatistics]) -> [String] {
        guard unexpectedCount > 0 else { return [] }
        var lines = ["", "unexpected answers (status 0: no answer):"]
        for route in rows {
            let intended = Action.intendedRateLimitedRoutes.contains(route.name)
            let statuses = route.statuses.filter { !(200..<300).contains($0.key) && !($0.key == 429 && intended) }
            guard !statuses.isEmpty else { continue }
            lines.append("  \(route.name): " + statuses.sorted { $0.key < $1.key }.map { "\($0.key) x\($0.value)" }.joined(separator: ", "))
        }
        for example in recorder.failureExamples
        where !(example.status == 429 && Action.intendedRateLimitedRoutes.contains(example.route)) {
            lines.append("  e.g. \(example.route) -> \(example.status): \(example.excerpt)")
        }
        return lines
    }
}

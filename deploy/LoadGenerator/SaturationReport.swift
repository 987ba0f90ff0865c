import Foundation

/// The summary of a saturation run: per step (user count) requests/s, p50 and p99 over all requests, the machine's
/// busy share and the stack's CPU per request, then the highest requests/s whose p99 met the goal (issue 21:
/// "saturation (LOAD_THINK=0): requests/s at p99 <= 100 ms").
struct SaturationReport {
    let steps: [SaturationStep]
    /// Milliseconds: the p99 a step must not exceed to count.
    let p99Goal: Double
    /// The stack's resident memory before the set-up (idle), when its processes were named.
    let idleMemory: String?

    /// The best step: the highest requests/s among the steps whose p99 met the goal and that had no unexpected answer.
    var best: SaturationStep? {
        steps.filter { $0.p99 <= p99Goal && $0.unexpected == 0 }.max { $0.requestsPerSecond < $1.requestsPerSecond }
    }

    /// The summary as text.
    func render() -> String {
        var lines = [
            "", "== saturation: no think time, one set-up, a measured window per user count ==",
            "users".padding(toLength: 8, withPad: " ", startingAt: 0)
                + ["req/s", "p50 ms", "p99 ms", "busy %", "stack CPU ms/req", "unexpected"].map(column).joined(),
        ]
        for step in steps {
            let stack = step.stackMillisecondsPerRequest.map { String(format: "%.2f", $0) } ?? "n/a"
            lines.append(
                "\(step.users)".padding(toLength: 8, withPad: " ", startingAt: 0)
                    + [
                        String(format: "%.1f", step.requestsPerSecond), String(format: "%.1f", step.p50), String(format: "%.1f", step.p99),
                        String(format: "%.0f", step.busyPercent), stack, "\(step.unexpected)",
                    ].map(column).joined())
        }
        if let idleMemory { lines.append(idleMemory) }
        let goal = String(format: "highest requests/s at p99 <= %.0f ms", p99Goal)
        if let best {
            let figures = String(
                format: "%.1f requests/s at %d users (p99 %.1f ms, machine %.0f%% busy)", best.requestsPerSecond, best.users, best.p99,
                best.busyPercent)
            lines.append("saturation: \(goal): \(figures)")
        } else {
            lines.append("saturation: \(goal): none of the steps met it (or every step had unexpected answers)")
        }
        let cores = ProcessInfo.processInfo.activeProcessorCount
        lines.append("busy % is of the whole machine: its \(cores) cores, shared by the stack, this generator and whatever else runs")
        return lines.joined(separator: "\n")
    }

    private func column(_ text: String) -> String { String(repeating: " ", count: max(1, 18 - text.count)) + text }
}

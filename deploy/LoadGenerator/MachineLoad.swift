import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// How busy the machine was, read from `/proc` (Linux) at the start and end of the measured window: every
/// core's busy time, the load average, and this generator's own CPU time (it shares the machine with the stack).
struct MachineLoad: Sendable {
    var busyTicks: Double
    var allTicks: Double
    var loadAverage: String
    var generatorSeconds: Double

    static func sample() -> MachineLoad {
        var busy = 0.0, all = 0.0
        if let stat = try? String(contentsOfFile: "/proc/stat", encoding: .utf8), let line = stat.split(separator: "\n").first {
            // cpu user nice system idle iowait irq softirq steal ...
            let ticks = line.split(separator: " ").dropFirst().compactMap { Double($0) }
            all = ticks.prefix(8).reduce(0, +)
            busy = all - (ticks.count > 4 ? ticks[3] + ticks[4] : 0)
        }
        let load = (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))?.split(separator: " ").prefix(3).joined(separator: " ") ?? "n/a"
        var cpu = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpu)
        return MachineLoad(busyTicks: busy, allTicks: all, loadAverage: load, generatorSeconds: Double(cpu.tv_sec) + Double(cpu.tv_nsec) / 1e9)
    }

    /// One line: the share of all cores busy between `start` and `end`, this generator's share, and the load averages.
    static func summary(from start: MachineLoad, to end: MachineLoad, seconds: Double) -> String {
        let cores = Double(ProcessInfo.processInfo.activeProcessorCount)
        let busy = busyPercent(from: start, to: end)
        let generator = (end.generatorSeconds - start.generatorSeconds) / (seconds * cores) * 100
        return String(format: "machine: %d cores, %.0f%% busy during the window (this generator %.0f%% of it all)", Int(cores), busy, generator)
            + "; load average \(start.loadAverage) at its start, \(end.loadAverage) at its end"
    }

    /// The share of all cores' time that was busy between `start` and `end`, in percent (NaN without ticks).
    static func busyPercent(from start: MachineLoad, to end: MachineLoad) -> Double {
        let all = end.allTicks - start.allTicks
        return all > 0 ? (end.busyTicks - start.busyTicks) / all * 100 : .nan
    }
}

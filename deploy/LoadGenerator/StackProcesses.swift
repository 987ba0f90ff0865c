import Foundation

/// The processes of the stack under load (`--stack-pids gateway:123,meals:456,postgres:789,...`), read from `/proc`
/// before the set-up and at the start and end of the measured window: each part's CPU time (the process and every
/// process below it, such as PostgreSQL's backends, plus what its exited children used) and its resident memory, now
/// and at its peak (the part's own process; PostgreSQL's backends share its buffers, so adding theirs would count
/// them many times).
struct StackProcesses: Sendable {
    /// A part's name and the pid of its main process, in the order given.
    let parts: [(name: String, pid: Int32)]

    /// Parts from `name:pid,name:pid`; nil for an empty list, a ValidationError-worthy message for a malformed one.
    static func parse(_ text: String) -> StackProcesses? {
        let parts = text.split(separator: ",").compactMap { entry -> (String, Int32)? in
            let pair = entry.split(separator: ":", maxSplits: 1)
            guard pair.count == 2, let pid = Int32(pair[1]), pid > 0 else { return nil }
            return (String(pair[0]), pid)
        }
        return parts.isEmpty ? nil : StackProcesses(parts: parts)
    }

    /// CPU seconds and resident memory of every part now.
    func sample() -> [String: ProcessSample] {
        let parents = Self.parentsOfAllProcesses()
        var sampled: [String: ProcessSample] = [:]
        for (name, pid) in parts {
            var tree: Set<Int32> = [pid]
            var grew = true
            while grew {
                let before = tree.count
                for (child, parent) in parents where tree.contains(parent) { tree.insert(child) }
                grew = tree.count > before
            }
            let cpu = tree.reduce(0.0) { $0 + Self.cpuSeconds(of: $1, includingReapedChildren: $1 == pid) }
            sampled[name] = ProcessSample(
                cpuSeconds: cpu, residentBytes: Self.statusBytes("VmRSS", of: pid), peakResidentBytes: Self.statusBytes("VmHWM", of: pid))
        }
        return sampled
    }

    /// Lines for the report: CPU per request by part over the window, and each part's resident memory at its end.
    func summary(from start: [String: ProcessSample], to end: [String: ProcessSample], requests: Int) -> [String] {
        guard requests > 0 else { return ["stack CPU per request: no request in the window", memory(end, when: "at the window's end")] }
        let byPart = millisecondsPerRequest(from: start, to: end, requests: requests)
        let cpu = parts.compactMap { part in byPart[part.name].map { String(format: "%@ %.2f", part.name, $0) } }
        let total = cpuSeconds(from: start, to: end)
        return [
            String(format: "stack CPU per request: %.2f ms (", total * 1000 / Double(requests)) + cpu.joined(separator: ", ")
                + String(format: "), %.1f CPU seconds for %d requests in the window", total, requests),
            memory(end, when: "at the window's end"),
        ]
    }

    /// Each part's CPU milliseconds per request between the two samples (the parts sampled both times).
    func millisecondsPerRequest(from start: [String: ProcessSample], to end: [String: ProcessSample], requests: Int) -> [String: Double] {
        guard requests > 0 else { return [:] }
        var byPart: [String: Double] = [:]
        for (name, _) in parts {
            guard let first = start[name], let last = end[name] else { continue }
            byPart[name] = max(0, last.cpuSeconds - first.cpuSeconds) * 1000 / Double(requests)
        }
        return byPart
    }

    /// The CPU seconds all parts together used between the two samples.
    func cpuSeconds(from start: [String: ProcessSample], to end: [String: ProcessSample]) -> Double {
        parts.reduce(0) { total, part in
            guard let first = start[part.name], let last = end[part.name] else { return total }
            return total + max(0, last.cpuSeconds - first.cpuSeconds)
        }
    }

    /// One line: each part's resident memory now and at its peak so far (VmRSS / VmHWM), `when` naming the moment.
    func memory(_ sample: [String: ProcessSample], when: String) -> String {
        let figures = parts.compactMap { part -> String? in
            guard let process = sample[part.name] else { return nil }
            return String(format: "%@ %.0f MB", part.name, Double(process.residentBytes) / 1_048_576)
                + String(format: " (peak %.0f)", Double(process.peakResidentBytes) / 1_048_576)
        }
        return "resident memory \(when), VmRSS (peak VmHWM): " + figures.joined(separator: ", ")
    }

    private static let ticksPerSecond = Double(sysconf(Int32(_SC_CLK_TCK)))

    /// Every process's parent, from `/proc/<pid>/stat`.
    private static func parentsOfAllProcesses() -> [Int32: Int32] {
        var parents: [Int32: Int32] = [:]
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
            guard let pid = Int32(entry), let fields = statFields(of: pid), fields.count > 1, let parent = Int32(fields[1]) else { continue }
            parents[pid] = parent
        }
        return parents
    }

    /// The fields of `/proc/<pid>/stat` after the command name: state, ppid, ... (utime is the 12th, stime the 13th).
    private static func statFields(of pid: Int32) -> [Substring]? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8), let close = stat.lastIndex(of: ")") else {
            return nil
        }
        return stat[stat.index(after: close)...].split(separator: " ")
    }

    private static func cpuSeconds(of pid: Int32, includingReapedChildren: Bool) -> Double {
        guard let fields = statFields(of: pid), fields.count > 14 else { return 0 }
        let used = [11, 12].compactMap { Double(fields[$0]) }.reduce(0, +)
        let children = includingReapedChildren ? [13, 14].compactMap { Double(fields[$0]) }.reduce(0, +) : 0
        return (used + children) / ticksPerSecond
    }

    /// A memory figure of `/proc/<pid>/status` (VmRSS, VmHWM) in bytes; 0 when the process is gone.
    private static func statusBytes(_ field: String, of pid: Int32) -> Int {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix(field + ":") }),
            let kilobytes = line.split(separator: " ").dropFirst().first.flatMap({ Int($0) })
        else { return 0 }
        return kilobytes * 1024
    }
}

import ArgumentParser
import Foundation

/// Simulates app users through the gateway: sets up their accounts and data (not measured), runs every user's
/// session loop through a warm-up and a measured window, prints the report, deletes the accounts. With `--steps`,
/// a saturation run: one set-up, then a warm-up and a window per user count, each with its report, and a summary.
/// Exits 1 when any answer in a window was an error other than an intended 429 (missed latency goals only print
/// NOT MET).
@main
struct LoadGenerator: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "LoadGenerator",
        abstract: "Simulated NutritionAI app users through the gateway: a realistic mix of reads and writes, timed per route.")

    @OptionGroup var options: LoadOptions

    func run() async throws {
        let client = GatewayClient.make(
            baseURL: options.gateway, connections: options.setUpUsers * Action.widestFanOut + options.setupConcurrency,
            timeout: options.requestTimeout)
        let runId = "\(Int(Date().timeIntervalSince1970))-\(ProcessInfo.processInfo.processIdentifier)"
        let population = Population(client: client, options: options, runId: runId)
        let stack = options.stackPids.flatMap(StackProcesses.parse)
        let idleMemory = stack.map { $0.memory($0.sample(), when: "before the set-up (idle)") }
        progress("run id \(runId): the accounts are load-\(runId)-<n>@example.com")
        var reports: [LoadReport] = []
        var accounts: [UserAccount]
        do {
            let made = try await population.create()
            accounts = made.accounts
            for users in options.stepUserCounts.isEmpty ? [options.users] : options.stepUserCounts {
                var stepOptions = options
                stepOptions.users = users
                if !options.stepUserCounts.isEmpty { stepOptions.label = "saturation, \(users) users" }
                let (finished, report) = await measure(Array(accounts.prefix(users)), links: made.links, client: client, options: stepOptions)
                // Tokens rotate during a window: the next step starts from the accounts as the users left them.
                accounts.replaceSubrange(0..<users, with: finished)
                var shown = report
                if let idleMemory, reports.isEmpty { shown.stack.insert(idleMemory, at: 0) }
                output(shown.render())
                if let summaryFile = options.summaryFile { try report.summary.append(to: summaryFile) }
                reports.append(report)
            }
        } catch {
            try? await client.shutdown()
            throw error
        }
        if !options.stepUserCounts.isEmpty {
            output(SaturationReport(steps: reports.map(\.saturationStep), p99Goal: options.p99GoalMs, idleMemory: idleMemory).render())
        }
        if options.keepUsers {
            progress("keeping the \(accounts.count) accounts (--keep-users)")
        } else {
            progress("deleted \(await population.delete(accounts)) of \(accounts.count) accounts")
            accounts.removeAll()
        }
        try await client.shutdown()
        if reports.contains(where: { $0.unexpectedCount > 0 }) { throw ExitCode(1) }
    }

    /// Runs every user until the window ends; answers the users' accounts as they left them (tokens rotate) and the report.
    private func measure(
        _ accounts: [UserAccount], links: [String], client: GatewayClient, options: LoadOptions
    ) async -> ([UserAccount], LoadReport) {
        let windowStart = ContinuousClock.now + .milliseconds(Int64(options.warmup * 1000))
        let recorder = Recorder(windowStart: windowStart, windowEnd: windowStart + .milliseconds(Int64(options.duration * 1000)))
        progress(String(format: "%d users: %.0f s warm-up, then %.0f s measured", options.users, options.warmup, options.duration))
        let stack = options.stackPids.flatMap(StackProcesses.parse)
        async let machine = Self.machineLoad(during: recorder, stack: stack)
        let think = ThinkTime(mean: options.think)
        let finished = await withTaskGroup(of: UserAccount.self) { group in
            for account in accounts {
                group.addTask {
                    var user = VirtualUser(account: account, client: client, recorder: recorder, links: links, think: think)
                    await user.run()
                    return user.account
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        let window = await machine
        var report = LoadReport(options: options, recorder: recorder, windowSeconds: options.duration, machine: window.line)
        report.busyPercent = window.busyPercent
        if let stack, let (start, end) = window.stack {
            let requests = recorder.routes.values.reduce(0) { $0 + $1.nanoseconds.count }
            report.stack = stack.summary(from: start, to: end, requests: requests)
            if requests > 0 { report.stackMillisecondsPerRequest = stack.cpuSeconds(from: start, to: end) * 1000 / Double(requests) }
            report.stackMillisecondsPerRequestByPart = stack.millisecondsPerRequest(from: start, to: end, requests: requests)
        }
        return (finished, report)
    }

    /// The machine's load over the window, as one line and as its busy share, and the stack's processes sampled at
    /// the window's start and end.
    private static func machineLoad(during recorder: Recorder, stack: StackProcesses?) async -> (
        line: String, busyPercent: Double, stack: (start: [String: ProcessSample], end: [String: ProcessSample])?
    ) {
        try? await Task.sleep(until: recorder.windowStart, clock: .continuous)
        let start = MachineLoad.sample()
        let stackStart = stack?.sample()
        try? await Task.sleep(until: recorder.windowEnd, clock: .continuous)
        let stackEnd = stack?.sample()
        let end = MachineLoad.sample()
        let seconds = Double((recorder.windowEnd - recorder.windowStart).components.seconds)
        let line = MachineLoad.summary(from: start, to: end, seconds: seconds)
        let busy = MachineLoad.busyPercent(from: start, to: end)
        guard let stackStart, let stackEnd else { return (line, busy, nil) }
        return (line, busy, (stackStart, stackEnd))
    }
}

/// A line of progress on standard error (the report goes to standard output).
func progress(_ message: String) {
    FileHandle.standardError.write(Data("    \(message)\n".utf8))
}

/// A report on standard output, written at once rather than buffered, so that it comes before the next progress lines.
func output(_ report: String) {
    FileHandle.standardOutput.write(Data("\(report)\n".utf8))
}

import ArgumentParser
import Foundation

/// What one load run simulates: how many app users, for how long, how fast they tap, and where the gateway is.
struct LoadOptions: ParsableArguments {
    @Option(help: "The gateway's address.")
    var gateway: String = "http://127.0.0.1:8080"

    @Option(help: "Concurrent virtual users, each with its own account, token and session loop.")
    var users: Int = 50

    @Option(help: "Seconds of the measured window.")
    var duration: Double = 60

    @Option(help: "Seconds of load before the window opens (not measured): connections, caches and pools warm up.")
    var warmup: Double = 10

    @Option(help: "Mean think time between a user's actions, in seconds (exponential, as a phone user pauses); 0 for a saturation run.")
    var think: Double = 1

    @Option(help: "Days of meals and weigh-ins seeded per user before the run, so dashboards read real data.")
    var seedDays: Int = 7

    @Option(help: "Requests in flight at once while setting up and tearing down (registration is bcrypt-bound).")
    var setupConcurrency: Int = 8

    @Option(help: "Seconds a request may take before it counts as failed (status 0).")
    var requestTimeout: Double = 30

    @Option(help: "A label for the report's heading.")
    var label: String?

    @Option(help: "The stack's processes as name:pid,name:pid (deploy/load passes them): their CPU per request and memory are reported.")
    var stackPids: String?

    @Option(help: "A file to append each measured window's figures to, as one line of JSON (deploy/bench/rest.sh reads it).")
    var summaryFile: String?

    @Flag(help: "Keep the accounts and their data after the run (by default they are deleted).")
    var keepUsers = false

    @Option(
        help: """
            A saturation run: user counts such as 4,8,16,32,64, measured one after another on one set-up of the \
            largest (each a warm-up and a measured window with that many of its users); --users is then ignored.
            """)
    var steps: String?

    @Option(help: "Milliseconds: the p99 a saturation step must not exceed for its requests/s to count.")
    var p99GoalMs: Double = 100

    /// The user counts of a saturation run, in the order given; empty without --steps.
    var stepUserCounts: [Int] { steps.map { $0.split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) } } ?? [] }

    /// The users to set up: the largest step of a saturation run, else --users.
    var setUpUsers: Int { stepUserCounts.max() ?? users }

    func validate() throws {
        guard users >= 1 else { throw ValidationError("--users must be at least 1") }
        guard duration > 0, warmup >= 0, think >= 0 else { throw ValidationError("--duration must be positive, --warmup and --think not negative") }
        if let steps {
            let counts = steps.split(separator: ",")
            guard !counts.isEmpty, counts.count == stepUserCounts.count, stepUserCounts.allSatisfy({ $0 >= 1 }) else {
                throw ValidationError("--steps must be positive user counts separated by commas, such as 4,8,16,32,64")
            }
        }
        guard p99GoalMs > 0 else { throw ValidationError("--p99-goal-ms must be positive") }
        guard (1...30).contains(seedDays) else { throw ValidationError("--seed-days must be 1 to 30") }
        guard setupConcurrency >= 1 else { throw ValidationError("--setup-concurrency must be at least 1") }
        if let stackPids, StackProcesses.parse(stackPids) == nil {
            throw ValidationError("--stack-pids must be name:pid pairs separated by commas, such as gateway:123,postgres:456")
        }
        guard URL(string: gateway)?.host != nil else { throw ValidationError("--gateway must be an address such as http://127.0.0.1:8080") }
    }
}

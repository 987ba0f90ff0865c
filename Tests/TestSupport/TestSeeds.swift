import Foundation

/// The seeds a property test runs, one test case each (`@Test(arguments: TestSeeds.list(default: ...))`): a fixed list,
/// so that every run of the test command tries the same inputs and a failure comes back on the next run, or the seeds
/// `NUTRITION_TEST_SEEDS` names to replay a failure or to search further (`17`, `1-500`, `3,9,40-60`). Each test puts
/// its seed in every failure message; Swift Testing also names the failing case's argument.
public enum TestSeeds {
    /// The environment variable that replaces every property test's fixed seeds.
    public static let variable = "NUTRITION_TEST_SEEDS"

    /// The seeds `NUTRITION_TEST_SEEDS` names, else `fixed`.
    public static func list(default fixed: [UInt64]) -> [UInt64] {
        guard let text = ProcessInfo.processInfo.environment[variable], let named = parse(text), !named.isEmpty else { return fixed }
        return named
    }

    /// `17`, `1-500` or a comma-separated mix of both, in order; nil when any part is neither.
    public static func parse(_ text: String) -> [UInt64]? {
        var seeds: [UInt64] = []
        for part in text.split(separator: ",") {
            let bounds = part.split(separator: "-", omittingEmptySubsequences: false).map { UInt64($0.trimmingCharacters(in: .whitespaces)) }
            switch bounds.count {
            case 1:
                guard let seed = bounds[0] else { return nil }
                seeds.append(seed)
            case 2:
                guard let low = bounds[0], let high = bounds[1], low <= high, high - low < 1_000_000 else { return nil }
                seeds += Array(low...high)
            default:
                return nil
            }
        }
        return seeds
    }
}

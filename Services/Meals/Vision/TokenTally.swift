import Synchronization

/// What one photo's analysis cost at the provider: every answer it gave (a retried or refused photo may take more than
/// one) and the tokens they reported, filled in by the vision client and read once the analysis is over, failed or not.
final class TokenTally: Sendable {
    private let state = Mutex((answers: 0, usage: TokenUsage.zero))

    /// An empty tally.
    init() {}

    /// Counts one answer of the provider, with the tokens it reported (nil when it reported none).
    func add(_ usage: TokenUsage?) {
        state.withLock { state in
            state.answers += 1
            state.usage = state.usage + (usage ?? .zero)
        }
    }

    /// Answers counted so far, and their tokens.
    var total: (answers: Int, usage: TokenUsage) { state.withLock { $0 } }
}

import NIOConcurrencyHelpers

/// The outcome of one produced message, fulfilled from the poll loop and awaited by the sender.
final class DeliveryPromise: Sendable {
    private enum State {
        case pending(CheckedContinuation<Result<DeliveryReport, KafkaError>, Never>?)
        case done(Result<DeliveryReport, KafkaError>)
    }

    private let state = NIOLockedValueBox(State.pending(nil))

    /// Records the outcome; the first call wins.
    func fulfil(_ result: Result<DeliveryReport, KafkaError>) {
        let waiter: CheckedContinuation<Result<DeliveryReport, KafkaError>, Never>? = state.withLockedValue { state in
            guard case .pending(let continuation) = state else { return nil }
            state = .done(result)
            return continuation
        }
        waiter?.resume(returning: result)
    }

    /// Waits for the outcome.
    func value() async -> Result<DeliveryReport, KafkaError> {
        await withCheckedContinuation { continuation in
            let ready: Result<DeliveryReport, KafkaError>? = state.withLockedValue { state in
                switch state {
                case .done(let result): return result
                case .pending:
                    state = .pending(continuation)
                    return nil
                }
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }
}

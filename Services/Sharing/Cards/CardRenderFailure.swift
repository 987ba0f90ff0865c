import BackendKit

/// Why a share card could not be rasterised. None is the caller's fault: the route answers 503 for each.
enum CardRenderFailure: Error, Equatable, Sendable {
    /// The rasteriser is not installed (or not where the settings say).
    case rasteriserMissing
    /// `queueLimit` renders are already running or waiting.
    case busy
    /// The render ran past its time limit and was killed.
    case timedOut
    /// The rasteriser exited with `status` or was killed by a signal (such as the output or memory limit).
    case failed(status: Int32)
    /// The output was empty, larger than allowed, or not a 1200x630 PNG.
    case badOutput
    /// The card's SVG names an outside resource, which is never rendered.
    case externalReference
}

extension CardRenderFailure {
    /// The render failure of a failed child process.
    init(_ failure: ChildProcessFailure) {
        switch failure {
        case .missing: self = .rasteriserMissing
        case .busy: self = .busy
        case .timedOut: self = .timedOut
        case .failed(let status): self = .failed(status: status)
        case .badOutput: self = .badOutput
        }
    }
}

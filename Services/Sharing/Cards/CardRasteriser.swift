import BackendKit
import Foundation
import Logging
import Metrics
import NIOCore
import ServiceLifecycle

/// Turns a share card's SVG into its 1200x630 PNG with `rsvg-convert` (librsvg) run as a `BoundedChildProcess`
/// (time, output size, memory and number bounded; the rest refused at once). The SVG reaches the process on standard
/// input, without a base address, so librsvg can open no file or URL; and an SVG naming anything but its own
/// fragments and inline `data:image/png|jpeg` pictures is refused before it runs.
/// Metric: `sharing_card_renders_total{outcome}` (`rendered`, `timed_out`, `failed`, `bad_output`, `busy`,
/// `missing`, `refused`).
final class CardRasteriser: Service {
    let settings: CardRasteriserSettings
    private let process: BoundedChildProcess
    private let metrics: any MetricsFactory

    /// The rasteriser found at start; nil when it is not installed.
    var executable: URL? { process.executable }
    /// Renders running or waiting for a thread now.
    var admittedRenders: Int { process.admittedRuns }

    /// A rasteriser for `settings`; says at start (through `logger`) when `rsvg-convert` or `prlimit` is missing.
    init(settings: CardRasteriserSettings, logger: Logger, metrics: any MetricsFactory = MetricsSystem.factory) {
        self.settings = settings
        self.metrics = metrics
        self.process = BoundedChildProcess(limits: settings.limits)
        if process.executable == nil {
            logger.warning(
                "share card rasteriser not found; GET /shared/:token/card.png answers 503 until it is installed (deploy/setup.sh)",
                metadata: ["rasteriser": .string(settings.executable)])
        }
        if process.limiter == nil {
            logger.warning("prlimit not found; card renders run without memory and file-size limits (time limit still applies)")
        }
    }

    func run() async throws {
        try await process.run()
    }

    /// The PNG of `svg`, or a `CardRenderFailure`.
    func png(_ svg: String) async throws -> ByteBuffer {
        guard CardSourceCheck.isSelfContained(svg) else { throw counted(.externalReference) }
        do {
            let png = try await process.output(
                of: Array(svg.utf8), inputName: "card.svg", inputVia: .standardStream, outputName: "card.png", outputVia: .standardStream,
                arguments: { _, _ in ["--format=png", "--width=1200", "--height=630"] },
                accepts: { png in PNGHeader.dimensions(of: png).map { $0.width == 1200 && $0.height == 630 } ?? false })
            Counter(label: "sharing_card_renders_total", dimensions: [("outcome", "rendered")], factory: metrics).increment()
            return ByteBuffer(bytes: png)
        } catch {
            throw counted(CardRenderFailure(error))
        }
    }

    private func counted(_ failure: CardRenderFailure) -> CardRenderFailure {
        let outcome =
            switch failure {
            case .rasteriserMissing: "missing"
            case .busy: "busy"
            case .timedOut: "timed_out"
            case .failed: "failed"
            case .badOutput: "bad_output"
            case .externalReference: "refused"
            }
        Counter(label: "sharing_card_renders_total", dimensions: [("outcome", outcome)], factory: metrics).increment()
        return failure
    }
}

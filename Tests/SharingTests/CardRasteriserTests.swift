import Foundation
import Logging
import MetricsTestKit
import NIOCore
import ServiceLifecycle
import Testing

@testable import SharingService

/// The PNG share card's rasteriser: the real `rsvg-convert` (installed by deploy/setup.sh) on the real card
/// template, and stand-in programs for the ways a render goes wrong.
@Suite("Share card rasteriser")
struct CardRasteriserTests {
    static let hostileTitles = [
        #"</text><script>alert("x")</script> & 'quotes' <image href="file:///etc/passwd"/>"#,
        "Fish & chips \"large\" <b>",
        String(repeating: "Very long meal name ", count: 200),
        "שקשוקה עם לחם 🍳🥖 مع خبز",
        "👨‍👩‍👧‍👦🇯🇵 味噌汁と焼き魚 \u{202E}gnp.exe",
    ]

    /// Runs `body` with a started rasteriser of `settings`, then stops it.
    static func withRasteriser<Result: Sendable>(
        _ settings: CardRasteriserSettings = CardRasteriserSettings(), metrics: TestMetrics = TestMetrics(),
        _ body: (CardRasteriser) async throws -> Result
    ) async throws -> Result {
        let rasteriser = CardRasteriser(settings: settings, logger: Logger(label: "test"), metrics: metrics)
        let services = ServiceGroup(services: [rasteriser], logger: Logger(label: "test"))
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await services.run() }
            let result: Result
            do {
                result = try await body(rasteriser)
            } catch {
                await services.triggerGracefulShutdown()
                throw error
            }
            await services.triggerGracefulShutdown()
            try await group.waitForAll()
            return result
        }
    }

    /// An executable shell script with `body`, in a fresh temporary folder.
    static func script(_ body: String) throws -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("rasteriser-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let path = folder.appendingPathComponent("fake-rsvg").path
        try "#!/bin/sh\n\(body)\n".write(toFile: path, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: path)
        return path
    }

    static func card(title: String, photo: String? = nil) throws -> String {
        var view = SharedMealView(
            SharedPageRendererTests.shared(title: title, notes: nil, displayName: "Ann & <Bob>", photo: photo != nil),
            addresses: SharedPageRendererTests.addresses)
        view.cardPhoto = photo
        return try SharedPageRenderer.bundled().card(view)
    }

    @Test("the card of any title, hostile, long, right-to-left or emoji, becomes a 1200x630 PNG")
    func hostileTitles() async throws {
        let metrics = TestMetrics()
        try await Self.withRasteriser(metrics: metrics) { rasteriser in
            for title in Self.hostileTitles {
                let png = try await rasteriser.png(try Self.card(title: title))
                let bytes = Array(png.readableBytesView)
                #expect(Array(bytes.prefix(8)) == PNGHeader.signature, "PNG signature for \(title.prefix(24))")
                let size = try #require(PNGHeader.dimensions(of: bytes))
                #expect(size.width == 1200 && size.height == 630)
            }
        }
        #expect(try metrics.expectCounter("sharing_card_renders_total", [("outcome", "rendered")]).totalValue == Self.hostileTitles.count)
    }

    @Test("an included photo is drawn on the card: the PNG differs from the card without it")
    func photo() async throws {
        let red = try await Self.solidPNG()
        let uri = "data:image/png;base64,\(Data(red).base64EncodedString())"
        let withPhoto = try Self.card(title: "Soup", photo: uri)
        let without = try Self.card(title: "Soup")
        #expect(withPhoto.contains(#"href="\#(uri)""#) && !without.contains("<image"))
        try await Self.withRasteriser { rasteriser in
            let pictured = try await rasteriser.png(withPhoto)
            let plain = try await rasteriser.png(without)
            #expect(pictured != plain)
        }
    }

    @Test("a missing rasteriser, a hung one, one writing no PNG and one failing each give their failure, never a crash")
    func failures() async throws {
        let metrics = TestMetrics()
        let svg = try Self.card(title: "Soup")
        try await Self.withRasteriser(CardRasteriserSettings(executable: "/nonexistent/rsvg-convert"), metrics: metrics) { rasteriser in
            #expect(rasteriser.executable == nil)
            await #expect(throws: CardRenderFailure.rasteriserMissing) { try await rasteriser.png(svg) }
        }
        let hung = CardRasteriserSettings(executable: try Self.script("exec sleep 60"), timeout: .milliseconds(300))
        try await Self.withRasteriser(hung, metrics: metrics) { rasteriser in
            await #expect(throws: CardRenderFailure.timedOut) { try await rasteriser.png(svg) }
        }
        try await Self.withRasteriser(CardRasteriserSettings(executable: try Self.script("exec cat")), metrics: metrics) { rasteriser in
            await #expect(throws: CardRenderFailure.badOutput) { try await rasteriser.png(svg) }
        }
        try await Self.withRasteriser(CardRasteriserSettings(executable: try Self.script("echo oops >&2; exit 3")), metrics: metrics) {
            rasteriser in
            await #expect(throws: CardRenderFailure.failed(status: 3)) { try await rasteriser.png(svg) }
        }
        for outcome in ["missing", "timed_out", "bad_output", "failed"] {
            #expect(try metrics.expectCounter("sharing_card_renders_total", [("outcome", outcome)]).totalValue == 1, "\(outcome)")
        }
    }

    @Test("beyond the queue limit a render is refused at once with busy, while the admitted one goes on")
    func busy() async throws {
        let metrics = TestMetrics()
        let svg = try Self.card(title: "Soup")
        let hung = CardRasteriserSettings(executable: try Self.script("exec sleep 60"), timeout: .seconds(2), concurrency: 1, queueLimit: 1)
        try await Self.withRasteriser(hung, metrics: metrics) { rasteriser in
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    await #expect(throws: CardRenderFailure.timedOut) { try await rasteriser.png(svg) }
                }
                while rasteriser.admittedRenders == 0 { try await Task.sleep(for: .milliseconds(10)) }
                await #expect(throws: CardRenderFailure.busy) { try await rasteriser.png(svg) }
                try await group.waitForAll()
            }
            #expect(rasteriser.admittedRenders == 0)
        }
        #expect(try metrics.expectCounter("sharing_card_renders_total", [("outcome", "busy")]).totalValue == 1)
        #expect(try metrics.expectCounter("sharing_card_renders_total", [("outcome", "timed_out")]).totalValue == 1)
    }

    @Test("an SVG naming a file, a URL or an entity is refused before any process runs")
    func externalReferences() async throws {
        let svg = try Self.card(title: "Soup")
        #expect(CardSourceCheck.isSelfContained(svg))
        #expect(CardSourceCheck.isSelfContained(try Self.card(title: "Soup", photo: "data:image/jpeg;base64,AAAA")))
        let hostile = [
            #"<image href="file:///etc/passwd" width="10" height="10"/>"#,
            #"<image xlink:href="http://169.254.169.254/x.png" xmlns:xlink="http://www.w3.org/1999/xlink"/>"#,
            #"<rect fill="url(http://example.com/p.svg#a)" width="1" height="1"/>"#,
            #"<image href="data:image/svg+xml;base64,AAAA"/>"#,
            #"<style>@import url(http://example.com/a.css);</style>"#,
        ]
        for element in hostile {
            let tampered = svg.replacingOccurrences(of: "</svg>", with: element + "</svg>")
            #expect(!CardSourceCheck.isSelfContained(tampered), "\(element)")
        }
        let entity = svg.replacingOccurrences(
            of: #"<svg xmlns"#, with: #"<!DOCTYPE svg [<!ENTITY x SYSTEM "file:///etc/passwd">]><svg xmlns"#)
        #expect(!CardSourceCheck.isSelfContained(entity))
        let metrics = TestMetrics()
        try await Self.withRasteriser(metrics: metrics) { rasteriser in
            let tampered = svg.replacingOccurrences(of: "</svg>", with: hostile[0] + "</svg>")
            await #expect(throws: CardRenderFailure.externalReference) { try await rasteriser.png(tampered) }
        }
        #expect(try metrics.expectCounter("sharing_card_renders_total", [("outcome", "refused")]).totalValue == 1)
    }

    @Test("a card's cache key changes with its text and with the photo it shows, and only then")
    func sourceDigest() throws {
        let soup = try Self.card(title: "Soup")
        #expect(ShareCardImages.sourceDigest(card: soup, photoDigest: nil) == ShareCardImages.sourceDigest(card: soup, photoDigest: nil))
        #expect(ShareCardImages.sourceDigest(card: soup, photoDigest: nil) != ShareCardImages.sourceDigest(card: soup, photoDigest: "a"))
        #expect(ShareCardImages.sourceDigest(card: soup, photoDigest: "a") != ShareCardImages.sourceDigest(card: soup, photoDigest: "b"))
        #expect(
            ShareCardImages.sourceDigest(card: soup, photoDigest: nil)
                != ShareCardImages.sourceDigest(card: try Self.card(title: "Stew"), photoDigest: nil))
    }

    /// A small, valid, solid red PNG made by the real rasteriser.
    static func solidPNG() async throws -> [UInt8] {
        let svg = ##"<svg xmlns="http://www.w3.org/2000/svg" width="1200" height="630"><rect width="1200" height="630" fill="#ff0000"/></svg>"##
        return try await withRasteriser { rasteriser in Array(try await rasteriser.png(svg).readableBytesView) }
    }
}

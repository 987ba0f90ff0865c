import NIOCore
import Synchronization
import Testing

@testable import SharingService

@Suite("Card render flights")
struct RenderFlightsTests {
    /// How many renders ran.
    final class RenderCount: Sendable {
        private let count = Mutex(0)
        func add() { count.withLock { $0 += 1 } }
        var value: Int { count.withLock { $0 } }
    }

    @Test("requests for a card being rendered wait for that render instead of starting another")
    func joined() async throws {
        let flights = RenderFlights()
        let renders = RenderCount()
        let (release, releaser) = AsyncStream<Void>.makeStream()
        async let first = flights.run("card") {
            renders.add()
            for await _ in release {}
            return ByteBuffer(string: "the render")
        }
        while await !flights.isRendering("card") { await Task.yield() }
        async let second = flights.run("card") {
            renders.add()
            return ByteBuffer(string: "a second render")
        }
        while await flights.waiting(for: "card") == 0 { await Task.yield() }
        releaser.finish()
        #expect(try await String(buffer: first) == "the render")
        #expect(try await String(buffer: second) == "the render")
        #expect(renders.value == 1)
        #expect(await !flights.isRendering("card"))

        let later = try await flights.run("card") { ByteBuffer(string: "next version") }
        #expect(String(buffer: later) == "next version", "a finished render is not kept here; the table keeps it")
    }
}

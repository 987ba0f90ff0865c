import Foundation
import Logging
import ServiceLifecycle
import Testing

@testable import SharingService

/// The views counter on an in-memory store: what a graceful shutdown and a full buffer write, and that a failed
/// write keeps its views.
@Suite("Shared link view counter")
struct ViewCounterTests {
    static let logger = Logger(label: "test")
    static let now = Date(timeIntervalSince1970: 1_778_414_400)

    @Test("views still in memory at a graceful shutdown are written before the counter stops")
    func writtenAtShutdown() async throws {
        let store = InMemorySharingStore()
        // A counter that would not write for an hour: only its shutdown can write these views.
        let counter = ViewCounter(store: store, interval: .seconds(3600), logger: Self.logger)
        let services = ServiceGroup(services: [counter], logger: Self.logger)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await services.run() }
            for _ in 0..<5 { try await counter.record("link", now: Self.now, logger: Self.logger) }
            #expect(counter.pendingViewCount == 5)
            #expect(store.viewWrites.isEmpty)
            await services.triggerGracefulShutdown()
            try await group.waitForAll()
        }
        #expect(counter.pendingViewCount == 0)
        #expect(store.viewWrites == [["link": PendingViews(count: 5, lastViewedAt: Self.now)]])
    }

    @Test("a full buffer writes at once: more distinct links than it holds lose no view")
    func fullBufferWritesAtOnce() async throws {
        let store = InMemorySharingStore()
        let counter = ViewCounter(store: store, interval: .seconds(3600), maxPendingLinks: 1, logger: Self.logger)
        try await counter.record("first", now: Self.now, logger: Self.logger)
        try await counter.record("first", now: Self.now.addingTimeInterval(1), logger: Self.logger)
        try await counter.record("second", now: Self.now.addingTimeInterval(2), logger: Self.logger)
        #expect(store.viewWrites == [["first": PendingViews(count: 2, lastViewedAt: Self.now.addingTimeInterval(1))]])
        #expect(counter.pendingViewCount == 1, "the second link waits for the next write")
    }

    @Test("a write that fails keeps its views for the next one, merged with those counted meanwhile")
    func failedWriteKeepsViews() async throws {
        let store = InMemorySharingStore()
        let counter = ViewCounter(store: store, interval: .seconds(3600), logger: Self.logger)
        try await counter.record("link", now: Self.now, logger: Self.logger)
        store.failViewWrites(true)
        await #expect(throws: ViewWriteFailed.self) { try await counter.flush(logger: Self.logger) }
        try await counter.record("link", now: Self.now.addingTimeInterval(5), logger: Self.logger)
        store.failViewWrites(false)
        try await counter.flush(logger: Self.logger)
        #expect(store.viewWrites == [["link": PendingViews(count: 2, lastViewedAt: Self.now.addingTimeInterval(5))]])
    }
}

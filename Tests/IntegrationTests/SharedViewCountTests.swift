import Foundation
import Logging
import PostgresNIO
import PostgresSupport
import ServiceLifecycle
import Testing

@testable import SharingService

/// Views of shared links are counted in memory and written in batches: none is lost, whether the counts are written
/// by the interval, by the owner's list, or by a graceful shutdown.
@Suite("Shared link view counts", .serialized, .enabled(if: TestEnvironment.isAvailable))
struct SharedViewCountTests {
    @Test("views reach sharing.links within the write interval, with no one reading the owner's list")
    func writtenByTheInterval() async throws {
        try await SharingStack.run(sharingSettings: ["sharing.views.write.interval.seconds": "0.05"]) { stack in
            let (token, _) = try await stack.signUp()
            let link = try await stack.shareLink(try await stack.logMeal(token: token), token: token)
            for _ in 0..<3 { #expect(try await stack.open("/api/share/\(link.token)").status == .ok) }
            #expect(try await stack.open("/shared/\(link.token)", headers: [.accept: "text/html"]).status == .ok)
            #expect(try await stack.open("/shared/\(link.token)/card.svg").status == .ok, "a card is part of a view, not a view")
            let written = try await TestEnvironment.eventually(timeout: .seconds(10)) {
                try await Self.storedViews(link.token, client: stack.sharingDatabase) == 4
            }
            let stored = try await Self.storedViews(link.token, client: stack.sharingDatabase)
            #expect(written && stored == 4, "stored views: \(stored)")
        }
    }

    @Test("views still in memory at a graceful shutdown are written before the service stops")
    func writtenAtShutdown() async throws {
        try await SharingStack.run { stack in
            let (token, _) = try await stack.signUp()
            let link = try await stack.shareLink(try await stack.logMeal(token: token), token: token)
            // A counter of its own that would not write for an hour: only its shutdown can write these views.
            let counter = ViewCounter(
                links: ShareLinkRepository(client: stack.sharingDatabase), interval: .seconds(3600), logger: TestEnvironment.logger)
            try await withRunning([counter]) {
                for _ in 0..<5 { try await counter.record(link.token, now: stack.clock.now(), logger: TestEnvironment.logger) }
                #expect(counter.pendingViewCount == 5)
            }
            #expect(counter.pendingViewCount == 0)
            #expect(try await Self.storedViews(link.token, client: stack.sharingDatabase) == 5)
        }
    }

    @Test("a full buffer writes at once: more distinct links than it holds lose no view")
    func fullBufferWritesAtOnce() async throws {
        try await SharingStack.run { stack in
            let (token, _) = try await stack.signUp()
            let mealId = try await stack.logMeal(token: token)
            let first = try await stack.shareLink(mealId, token: token), second = try await stack.shareLink(mealId, token: token)
            let counter = ViewCounter(
                links: ShareLinkRepository(client: stack.sharingDatabase), interval: .seconds(3600), maxPendingLinks: 1,
                logger: TestEnvironment.logger)
            try await counter.record(first.token, now: stack.clock.now(), logger: TestEnvironment.logger)
            try await counter.record(second.token, now: stack.clock.now(), logger: TestEnvironment.logger)
            #expect(try await Self.storedViews(first.token, client: stack.sharingDatabase) == 1, "written when the second link found it full")
            #expect(counter.pendingViewCount == 1)
        }
    }

    /// `view_count` of the link as stored.
    static func storedViews(_ token: String, client: PostgresPool) async throws -> Int {
        let rows = try await client.query("SELECT view_count FROM links WHERE token = \(token)", logger: TestEnvironment.logger)
        for try await count in rows.decode(Int.self) { return count }
        return -1
    }
}

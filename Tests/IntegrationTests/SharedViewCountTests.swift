import Foundation
import Logging
import PostgresNIO
import PostgresSupport
import Testing

@testable import SharingService

/// Views of shared links are counted in memory and written in batches; here, that the interval's writes reach the
/// real table (the shutdown's write and the full buffer are `ViewCounterTests`, on an in-memory store).
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

    /// `view_count` of the link as stored.
    static func storedViews(_ token: String, client: PostgresPool) async throws -> Int {
        let rows = try await client.query("SELECT view_count FROM links WHERE token = \(token)", logger: TestEnvironment.logger)
        for try await count in rows.decode(Int.self) { return count }
        return -1
    }
}

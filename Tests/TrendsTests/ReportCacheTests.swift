import Foundation
import ServiceDefaults
import Testing

@testable import TrendsService

/// `ReportCache`: a report is served only at the data version it was computed at, and the cache stays bounded.
@Suite("Ready report cache")
struct ReportCacheTests {
    private let user = UUID()
    private let tokyo = TrendsProfile(timeZone: TimeZone(identifier: "Asia/Tokyo")!, weightUnit: "kg")

    @Test("a report is served at its version only; a newer version drops the older reports")
    func servedAtItsVersionOnly() {
        let cache = ReportCache(userCapacity: 10)
        cache.storeProfile(.standard, of: user, version: 3)
        cache.storeReport("three", of: user, key: "stats", version: 3)
        #expect(cache.report(String.self, of: user, key: "stats", version: 3) == "three")
        #expect(cache.report(String.self, of: user, key: "stats", version: 4) == nil)
        cache.storeProfile(tokyo, of: user, version: 4)
        #expect(cache.profile(of: user, version: 4) == tokyo)
        #expect(cache.report(String.self, of: user, key: "stats", version: 4) == nil, "the version-3 report went with its entry")
        #expect(cache.profile(of: user, version: 3) == nil)
    }

    @Test("a slower read of an older version neither replaces nor adds to a newer entry")
    func olderVersionNeverOverwrites() {
        let cache = ReportCache(userCapacity: 10)
        cache.storeProfile(tokyo, of: user, version: 5)
        cache.storeProfile(.standard, of: user, version: 4)
        cache.storeReport("four", of: user, key: "stats", version: 4)
        #expect(cache.profile(of: user, version: 5) == tokyo)
        #expect(cache.report(String.self, of: user, key: "stats", version: 5) == nil)
        #expect(cache.report(String.self, of: user, key: "stats", version: 4) == nil)
    }

    @Test("at most userCapacity users and reportsPerUser reports a user are kept")
    func bounded() {
        let cache = ReportCache(userCapacity: 3, reportsPerUser: 2)
        for _ in 0..<10 { cache.storeProfile(.standard, of: UUID(), version: 1) }
        #expect(cache.userCount == 3)
        cache.storeProfile(.standard, of: user, version: 1)
        for key in ["a", "b", "c"] { cache.storeReport(key, of: user, key: key, version: 1) }
        #expect(cache.userCount == 3)
        #expect(cache.report(String.self, of: user, key: "c", version: 1) == "c")
        #expect(cache.report(String.self, of: user, key: "a", version: 1) == nil, "the third report started the user's reports over")
    }
}

import Foundation
import ServiceDefaults
import SyncContracts
import TestSupport
import Testing

@testable import Gateway

/// The composed changes feed's merge and cursor, without any service: an area's feed is simulated by
/// `FakeFeed.page(since:limit:)`, which answers as the contract says an area does.
@Suite("Sync changes merge")
struct SyncChangesMergeTests {
    /// One area's feed: changes with increasing seqs.
    struct FakeFeed {
        var seqs: [Int64]

        /// The area's page after `since`: at most `limit` changes, `nextCursor` the last seq (or `since`).
        func page(area: SyncArea, since: Int64, limit: Int) -> SyncChangePage<JSONValue> {
            let after = seqs.filter { $0 > since }
            let changes = after.prefix(limit).map { seq in
                SyncChange<JSONValue>.live(
                    seq: seq, type: area.rawValue, id: "\(area.rawValue)-\(seq)", version: 1, modifiedAt: Date(timeIntervalSince1970: 0),
                    data: .object(["seq": .number(Double(seq))]))
            }
            return SyncChangePage(
                changes: Array(changes), nextCursor: String(changes.last?.seq ?? since), hasMore: after.count > limit)
        }
    }

    /// Reads the whole composed feed from the start with `limit`, as a client would; fails after too many pages. `context`
    /// (the seed) goes into every failure message.
    static func pageThrough(_ feeds: [SyncArea: FakeFeed], limit: Int, context: Comment = "") throws -> [SyncChange<JSONValue>] {
        var cursor = SyncChangesCursor.start
        var all: [SyncChange<JSONValue>] = []
        for _ in 0..<10_000 {
            let pages = Dictionary(
                uniqueKeysWithValues: SyncArea.allCases.map { area in
                    (area, feeds[area]!.page(area: area, since: cursor[area], limit: limit))
                })
            let result = try SyncChangesMerge.merge(cursor: cursor, pages: pages, limit: limit)
            #expect(result.page.changes.count <= limit, context)
            all += result.page.changes
            #expect(try SyncChangesCursor.decode(result.page.nextCursor) == result.next, context)
            cursor = result.next
            if !result.page.hasMore { return all }
        }
        Issue.record("the feed did not end; \(context)")
        return all
    }

    @Test("areas come in order profile, meals, metrics; a cut area resumes after its last included change")
    func orderAndCut() throws {
        let pages: [SyncArea: SyncChangePage<JSONValue>] = [
            .profile: FakeFeed(seqs: [4]).page(area: .profile, since: 0, limit: 3),
            .meals: FakeFeed(seqs: [1, 2, 7]).page(area: .meals, since: 0, limit: 3),
            .metrics: FakeFeed(seqs: [5]).page(area: .metrics, since: 0, limit: 3),
        ]
        let result = try SyncChangesMerge.merge(cursor: .start, pages: pages, limit: 3)
        #expect(result.page.changes.map(\.id) == ["profile-4", "meals-1", "meals-2"])
        #expect(result.next == SyncChangesCursor(profile: 4, meals: 2, metrics: 0))
        #expect(result.page.hasMore)
    }

    @Test("an area taken whole moves to its nextCursor; nothing more anywhere ends the feed")
    func wholePages() throws {
        let cursor = SyncChangesCursor(profile: 4, meals: 2, metrics: 0)
        let pages: [SyncArea: SyncChangePage<JSONValue>] = [
            .profile: FakeFeed(seqs: [4]).page(area: .profile, since: 4, limit: 3),
            .meals: FakeFeed(seqs: [1, 2, 7]).page(area: .meals, since: 2, limit: 3),
            .metrics: FakeFeed(seqs: [5]).page(area: .metrics, since: 0, limit: 3),
        ]
        let result = try SyncChangesMerge.merge(cursor: cursor, pages: pages, limit: 3)
        #expect(result.page.changes.map(\.id) == ["meals-7", "metrics-5"])
        #expect(result.next == SyncChangesCursor(profile: 4, meals: 7, metrics: 5))
        #expect(!result.page.hasMore)
    }

    @Test("an area saying hasMore makes the page say hasMore even when every change fit")
    func areaHasMore() throws {
        let page = SyncChangePage<JSONValue>(changes: [], nextCursor: "9", hasMore: true)
        let empty = SyncChangePage<JSONValue>(changes: [], nextCursor: "0", hasMore: false)
        let result = try SyncChangesMerge.merge(cursor: .start, pages: [.profile: empty, .meals: page, .metrics: empty], limit: 10)
        #expect(result.page.hasMore)
        #expect(result.next.meals == 9)
    }

    @Test("an area whose nextCursor is not a seq is refused")
    func malformedAreaCursor() {
        let page = SyncChangePage<JSONValue>(changes: [], nextCursor: "abc", hasMore: false)
        #expect(throws: SyncChangesMerge.MalformedAreaCursor(area: .profile)) {
            try SyncChangesMerge.merge(cursor: .start, pages: [.profile: page], limit: 10)
        }
    }

    @Test(
        "property: paging through any three feeds with any limit yields every change once, in each area's seq order",
        arguments: TestSeeds.list(default: Array(1...30)))
    func pagingProperty(seed: UInt64) throws {
        var generator = SplitMix64(seed: seed)
        for round in 0..<10 {
            var feeds: [SyncArea: FakeFeed] = [:]
            for area in SyncArea.allCases {
                let count = Int.random(in: 0...25, using: &generator)
                var seq: Int64 = 0
                feeds[area] = FakeFeed(
                    seqs: (0..<count).map { _ in
                        seq += Int64.random(in: 1...3, using: &generator)
                        return seq
                    })
            }
            let limit = Int.random(in: 1...12, using: &generator)
            let all = try Self.pageThrough(feeds, limit: limit, context: "seed \(seed), round \(round)")
            for area in SyncArea.allCases {
                let seen = all.filter { $0.type == area.rawValue }.map(\.seq)
                #expect(seen == feeds[area]!.seqs, "seed \(seed), round \(round): area \(area) with limit \(limit)")
            }
            #expect(all.count == feeds.values.map(\.seqs.count).reduce(0, +), "seed \(seed), round \(round)")
        }
    }

    @Test("cursors: absent or 0 is a full download; what the merge makes reads back; anything else (empty too) is invalid_cursor")
    func cursors() throws {
        #expect(try SyncChangesCursor.decode(nil) == .start)
        #expect(try SyncChangesCursor.decode("0") == .start)
        let cursor = SyncChangesCursor(profile: 3, meals: 1_000_000_000_000, metrics: 0)
        #expect(try SyncChangesCursor.decode(cursor.encoded) == cursor)
        for invalid in [
            "", "12", "abc", "%%%", Base64URL.encode(Data(#"{"v":2,"profile":0,"meals":0,"metrics":0}"#.utf8)),
            Base64URL.encode(Data(#"{"v":1,"profile":-1,"meals":0,"metrics":0}"#.utf8)), Base64URL.encode(Data("v1.1.2.3".utf8)),
        ] {
            let error = try #require(throws: APIError.self, "\(invalid)") { try SyncChangesCursor.decode(invalid) }
            #expect(error.status == .unprocessableContent)
            #expect(error.code == "invalid_cursor")
        }
    }
}

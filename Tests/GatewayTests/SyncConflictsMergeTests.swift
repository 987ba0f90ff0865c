import Foundation
import ServiceDefaults
import SyncContracts
import TestSupport
import Testing

@testable import Gateway

/// The composed conflict list's merge and cursor, without any service: an area's list is simulated by `FakeLog`,
/// which pages newest first with an opaque cursor as `SyncConflictLog.list` does, in the order its SQL states
/// (`newestFirstAsSQL`, written apart from the merge's own comparison).
@Suite("Sync conflicts merge")
struct SyncConflictsMergeTests {
    /// One area's conflicts, newest first.
    struct FakeLog {
        var conflicts: [SyncConflictBody<JSONValue>]

        /// Conflicts resolved at `times`, with ids drawn from `ids`, in the order `SyncConflictLog.list` answers them.
        init(area: SyncArea, times: [TimeInterval], ids: inout SplitMix64) {
            conflicts = times.map { time in
                SyncConflictBody(
                    id: SyncConflictsMergeTests.id(using: &ids), type: area.rawValue, entityId: "e", resolution: .staleWriteIgnored,
                    winner: "stored", stored: .null, incoming: .null, resolvedAt: Date(timeIntervalSince1970: time))
            }
            .sorted(by: SyncConflictsMergeTests.newestFirstAsSQL)
        }

        /// A page of at most `limit` after `cursor` (the index where the page starts, as text).
        func page(limit: Int, cursor: String?) -> SyncConflictPage<JSONValue> {
            let start = cursor.flatMap { Int($0) } ?? 0
            let page = Array(conflicts.dropFirst(start).prefix(limit))
            return SyncConflictPage(conflicts: page, nextCursor: start + page.count < conflicts.count ? String(start + page.count) : nil)
        }
    }

    /// Reads every page with `limit` as a client would, asking only the areas the cursor says are not done; `context` (the
    /// seed) goes into every failure message.
    static func pageThrough(_ logs: [SyncArea: FakeLog], limit: Int, context: Comment = "") throws -> [SyncConflictBody<JSONValue>] {
        var cursor = SyncConflictsCursor()
        var all: [SyncConflictBody<JSONValue>] = []
        for _ in 0..<10_000 {
            var pages: [SyncArea: SyncConflictPage<JSONValue>] = [:]
            for area in SyncArea.allCases {
                guard let ask = SyncConflictsMerge.askLimit(for: area, cursor: cursor, limit: limit, areaMaximum: 7) else { continue }
                pages[area] = logs[area]!.page(limit: ask, cursor: cursor.position(of: area).cursor)
            }
            let result = SyncConflictsMerge.merge(cursor: cursor, pages: pages, limit: limit)
            #expect(result.conflicts.count <= limit, context)
            all += result.conflicts
            guard let next = result.next else { return all }
            #expect(try SyncConflictsCursor.decode(next.encoded) == next, context)
            cursor = next
        }
        Issue.record("the list did not end; \(context)")
        return all
    }

    /// `SyncConflictLog.list`'s order, `ORDER BY resolved_at DESC, id DESC`, with PostgreSQL's comparison of uuids (their
    /// 16 bytes, unsigned, first to last): the oracle the merge is checked against, so it shares no code with `isOlder`.
    static func newestFirstAsSQL(_ lhs: SyncConflictBody<JSONValue>, _ rhs: SyncConflictBody<JSONValue>) -> Bool {
        if lhs.resolvedAt != rhs.resolvedAt { return lhs.resolvedAt > rhs.resolvedAt }
        return bytes(of: rhs.id).lexicographicallyPrecedes(bytes(of: lhs.id))
    }

    /// The 16 bytes of `id` in order.
    static func bytes(of id: UUID) -> [UInt8] {
        withUnsafeBytes(of: id.uuid) { Array($0) }
    }

    /// An id whose bytes come from a few values at the edges of hex digits and of signed bytes (0x09/0x0A, 0x7F/0x80), so
    /// that ties and long common prefixes are frequent and an ordering by text or by signed bytes would show.
    static func id(using generator: inout SplitMix64) -> UUID {
        let edges: [UInt8] = [0x00, 0x09, 0x0A, 0x7F, 0x80, 0xFF]
        let bytes = (0..<16).map { _ in edges[Int.random(in: 0..<edges.count, using: &generator)] }
        return bytes.withUnsafeBytes { UUID(uuid: $0.load(as: uuid_t.self)) }
    }

    @Test("the oracle orders as PostgreSQL does: an id's bytes unsigned, first to last")
    func oracleOrder() throws {
        let low = try #require(UUID(uuidString: "7f000000-0000-0000-0000-0000000000ff"))
        let high = try #require(UUID(uuidString: "80000000-0000-0000-0000-000000000000"))
        let at = Date(timeIntervalSince1970: 5)
        func body(_ id: UUID, _ time: Date = at) -> SyncConflictBody<JSONValue> {
            SyncConflictBody(
                id: id, type: "meal", entityId: "e", resolution: .staleWriteIgnored, winner: "stored", stored: .null, incoming: .null,
                resolvedAt: time)
        }
        #expect(Self.newestFirstAsSQL(body(high), body(low)))
        #expect(!Self.newestFirstAsSQL(body(low), body(high)))
        #expect(Self.newestFirstAsSQL(body(low, at.addingTimeInterval(1)), body(high)), "the later time first, whatever the ids")
        #expect(!Self.newestFirstAsSQL(body(low), body(low)))
    }

    @Test("conflicts of all areas come newest first, ties by id descending")
    func newestFirst() {
        var ids = SplitMix64(seed: 1)
        let profile = FakeLog(area: .profile, times: [10, 40], ids: &ids)
        let meals = FakeLog(area: .meals, times: [30, 20, 40], ids: &ids)
        let result = SyncConflictsMerge.merge(
            cursor: SyncConflictsCursor(),
            pages: [.profile: profile.page(limit: 10, cursor: nil), .meals: meals.page(limit: 10, cursor: nil)], limit: 10)
        #expect(result.conflicts.map(\.resolvedAt.timeIntervalSince1970) == [40, 40, 30, 20, 10])
        #expect(Self.bytes(of: result.conflicts[1].id).lexicographicallyPrecedes(Self.bytes(of: result.conflicts[0].id)))
        #expect(result.next?.position(of: .metrics).done == false)
        #expect(result.next?.position(of: .profile).done == true)
    }

    @Test("an exhausted area is not asked again; the list ends when every area is done")
    func exhaustedAreas() {
        var cursor = SyncConflictsCursor()
        cursor.areas[.profile] = .init(done: true)
        #expect(SyncConflictsMerge.askLimit(for: .profile, cursor: cursor, limit: 5) == nil)
        #expect(SyncConflictsMerge.askLimit(for: .meals, cursor: cursor, limit: 5) == 5)
        let empty = SyncConflictPage<JSONValue>(conflicts: [], nextCursor: nil)
        #expect(SyncConflictsMerge.merge(cursor: cursor, pages: [.meals: empty, .metrics: empty], limit: 5).next == nil)
    }

    @Test("a first page that gained newer conflicts meanwhile is resumed after the last one sent, without repeats")
    func shiftedFirstPage() throws {
        var ids = SplitMix64(seed: 2)
        var log = FakeLog(area: .meals, times: [50, 40, 30, 20], ids: &ids)
        let first = SyncConflictsMerge.merge(cursor: SyncConflictsCursor(), pages: [.meals: log.page(limit: 3, cursor: nil)], limit: 2)
        #expect(first.conflicts.map(\.resolvedAt.timeIntervalSince1970) == [50, 40])
        let cursor = try #require(first.next)
        #expect(cursor.position(of: .meals).cursor == nil)
        #expect(cursor.position(of: .meals).skip == 2)
        log.conflicts.insert(FakeLog(area: .meals, times: [60], ids: &ids).conflicts[0], at: 0)
        let ask = try #require(SyncConflictsMerge.askLimit(for: .meals, cursor: cursor, limit: 2))
        let second = SyncConflictsMerge.merge(cursor: cursor, pages: [.meals: log.page(limit: ask, cursor: nil)], limit: 2)
        #expect(second.conflicts.map(\.resolvedAt.timeIntervalSince1970) == [30])
    }

    @Test(
        "property: paging through any three lists with any limit yields every conflict once, newest first",
        arguments: TestSeeds.list(default: Array(1...30)))
    func pagingProperty(seed: UInt64) throws {
        var generator = SplitMix64(seed: seed)
        for round in 0..<10 {
            var logs: [SyncArea: FakeLog] = [:]
            for area in SyncArea.allCases {
                let times = (0..<Int.random(in: 0...20, using: &generator)).map { _ in TimeInterval(Int.random(in: 0...15, using: &generator)) }
                logs[area] = FakeLog(area: area, times: times, ids: &generator)
            }
            let limit = Int.random(in: 1...10, using: &generator)
            let context: Comment = "seed \(seed), round \(round), limit \(limit)"
            let all = try Self.pageThrough(logs, limit: limit, context: context)
            let expected = logs.values.flatMap(\.conflicts).sorted(by: Self.newestFirstAsSQL)
            #expect(all.map(\.id) == expected.map(\.id), context)
        }
    }

    @Test("cursors this gateway did not make are invalid_cursor")
    func invalidCursors() throws {
        #expect(try SyncConflictsCursor.decode(nil) == SyncConflictsCursor())
        for invalid in [
            "", "abc", "0", Base64URL.encode(Data(#"{"v":2,"areas":{}}"#.utf8)),
            Base64URL.encode(Data(#"{"v":1,"areas":{"meals":{"skip":-1,"done":false}}}"#.utf8)),
        ] {
            let error = try #require(throws: APIError.self, "\(invalid)") { try SyncConflictsCursor.decode(invalid) }
            #expect(error.code == "invalid_cursor")
        }
    }
}

import Foundation
import ServiceDefaults
import SyncContracts
import Testing

@testable import Gateway

/// The composed conflict list's merge and cursor, without any service: an area's list is simulated by `FakeLog`,
/// which pages newest first with an opaque cursor as `SyncConflictLog.list` does.
@Suite("Sync conflicts merge")
struct SyncConflictsMergeTests {
    /// One area's conflicts, newest first.
    struct FakeLog {
        var conflicts: [SyncConflictBody<JSONValue>]

        init(area: SyncArea, times: [TimeInterval]) {
            conflicts = times.map { time in
                SyncConflictBody(
                    id: UUID(), type: area.rawValue, entityId: "e", resolution: .staleWriteIgnored, winner: "stored", stored: .null,
                    incoming: .null, resolvedAt: Date(timeIntervalSince1970: time))
            }
            .sorted { SyncConflictsMerge.isOlder($1, than: $0) }
        }

        /// A page of at most `limit` after `cursor` (the index where the page starts, as text).
        func page(limit: Int, cursor: String?) -> SyncConflictPage<JSONValue> {
            let start = cursor.flatMap { Int($0) } ?? 0
            let page = Array(conflicts.dropFirst(start).prefix(limit))
            return SyncConflictPage(conflicts: page, nextCursor: start + page.count < conflicts.count ? String(start + page.count) : nil)
        }
    }

    /// Reads every page with `limit` as a client would, asking only the areas the cursor says are not done.
    static func pageThrough(_ logs: [SyncArea: FakeLog], limit: Int) throws -> [SyncConflictBody<JSONValue>] {
        var cursor = SyncConflictsCursor()
        var all: [SyncConflictBody<JSONValue>] = []
        for _ in 0..<10_000 {
            var pages: [SyncArea: SyncConflictPage<JSONValue>] = [:]
            for area in SyncArea.allCases {
                guard let ask = SyncConflictsMerge.askLimit(for: area, cursor: cursor, limit: limit, areaMaximum: 7) else { continue }
                pages[area] = logs[area]!.page(limit: ask, cursor: cursor.position(of: area).cursor)
            }
            let result = SyncConflictsMerge.merge(cursor: cursor, pages: pages, limit: limit)
            #expect(result.conflicts.count <= limit)
            all += result.conflicts
            guard let next = result.next else { return all }
            #expect(try SyncConflictsCursor.decode(next.encoded) == next)
            cursor = next
        }
        Issue.record("the list did not end")
        return all
    }

    @Test("conflicts of all areas come newest first, ties by id descending")
    func newestFirst() {
        let profile = FakeLog(area: .profile, times: [10, 40])
        let meals = FakeLog(area: .meals, times: [30, 20, 40])
        let result = SyncConflictsMerge.merge(
            cursor: SyncConflictsCursor(),
            pages: [.profile: profile.page(limit: 10, cursor: nil), .meals: meals.page(limit: 10, cursor: nil)], limit: 10)
        #expect(result.conflicts.map(\.resolvedAt.timeIntervalSince1970) == [40, 40, 30, 20, 10])
        #expect(result.conflicts[0].id.uuidString > result.conflicts[1].id.uuidString)
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
        var log = FakeLog(area: .meals, times: [50, 40, 30, 20])
        let first = SyncConflictsMerge.merge(cursor: SyncConflictsCursor(), pages: [.meals: log.page(limit: 3, cursor: nil)], limit: 2)
        #expect(first.conflicts.map(\.resolvedAt.timeIntervalSince1970) == [50, 40])
        let cursor = try #require(first.next)
        #expect(cursor.position(of: .meals).cursor == nil)
        #expect(cursor.position(of: .meals).skip == 2)
        log.conflicts.insert(FakeLog(area: .meals, times: [60]).conflicts[0], at: 0)
        let ask = try #require(SyncConflictsMerge.askLimit(for: .meals, cursor: cursor, limit: 2))
        let second = SyncConflictsMerge.merge(cursor: cursor, pages: [.meals: log.page(limit: ask, cursor: nil)], limit: 2)
        #expect(second.conflicts.map(\.resolvedAt.timeIntervalSince1970) == [30])
    }

    @Test("property: paging through any three lists with any limit yields every conflict once, newest first")
    func pagingProperty() throws {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<300 {
            var logs: [SyncArea: FakeLog] = [:]
            for area in SyncArea.allCases {
                let times = (0..<Int.random(in: 0...20, using: &generator)).map { _ in TimeInterval(Int.random(in: 0...15, using: &generator)) }
                logs[area] = FakeLog(area: area, times: times)
            }
            let limit = Int.random(in: 1...10, using: &generator)
            let all = try Self.pageThrough(logs, limit: limit)
            let expected = logs.values.flatMap(\.conflicts).sorted { SyncConflictsMerge.isOlder($1, than: $0) }
            #expect(all.map(\.id) == expected.map(\.id), "limit \(limit)")
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

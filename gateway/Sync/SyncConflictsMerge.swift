import Foundation
import SyncContracts

/// Merges the areas' conflict lists into one, newest first (`resolvedAt` descending, then `id` descending), keeping
/// each area's own order. A k-way merge: it takes the newest head of the areas' pages until `limit`, and stops when an
/// area whose page is used up has older conflicts it has not sent yet (one of those could be newer than the other
/// areas' heads). Pure, so that paging is tested without any service.
struct SyncConflictsMerge {
    /// The composed page and the cursor after it (nil when every area is read to its end).
    struct Result {
        var conflicts: [SyncConflictBody<JSONValue>]
        var next: SyncConflictsCursor?
    }

    /// How many conflicts to ask `area` for to have up to `limit` new ones after the part of its page already sent,
    /// within the areas' own maximum; nil when the area is read to its end.
    static func askLimit(for area: SyncArea, cursor: SyncConflictsCursor, limit: Int, areaMaximum: Int = 100) -> Int? {
        let position = cursor.position(of: area)
        if position.done { return nil }
        return min(areaMaximum, position.skip + limit)
    }

    /// Merges `pages` (the areas asked, each read at its position in `cursor` with `askLimit`) into at most `limit`
    /// conflicts.
    static func merge(cursor: SyncConflictsCursor, pages: [SyncArea: SyncConflictPage<JSONValue>], limit: Int) -> Result {
        var remaining: [SyncArea: ArraySlice<SyncConflictBody<JSONValue>>] = [:]
        var skipped: [SyncArea: Int] = [:]
        for (area, page) in pages where !cursor.position(of: area).done {
            let position = cursor.position(of: area)
            let alreadySent: Int
            if let after = position.after, let index = page.conflicts.firstIndex(where: { $0.id == after }) {
                alreadySent = index + 1
            } else {
                alreadySent = min(position.skip, page.conflicts.count)
            }
            skipped[area] = alreadySent
            remaining[area] = page.conflicts.dropFirst(alreadySent)
        }
        var taken: [SyncArea: [SyncConflictBody<JSONValue>]] = [:]
        var conflicts: [SyncConflictBody<JSONValue>] = []
        func blocked() -> Bool {
            remaining.contains { area, rest in rest.isEmpty && pages[area]?.nextCursor != nil }
        }
        while conflicts.count < limit, !blocked() {
            let heads = remaining.compactMap { area, rest in rest.first.map { (area, $0) } }
            guard let (area, newest) = heads.max(by: { isOlder($0.1, than: $1.1) }) else { break }
            conflicts.append(newest)
            taken[area, default: []].append(newest)
            remaining[area] = remaining[area]?.dropFirst()
        }
        var next = cursor
        for (area, page) in pages where !cursor.position(of: area).done {
            var position = cursor.position(of: area)
            if remaining[area]?.isEmpty ?? true {
                position = SyncConflictsCursor.AreaPosition(cursor: page.nextCursor, done: page.nextCursor == nil)
            } else if let last = taken[area]?.last {
                position.skip = (skipped[area] ?? 0) + (taken[area]?.count ?? 0)
                position.after = last.id
            }
            next.areas[area] = position
        }
        return Result(conflicts: conflicts, next: next.isFinished ? nil : next)
    }

    /// The list's order: `lhs` comes after `rhs` (resolved earlier, or at the same time with a smaller id).
    static func isOlder(_ lhs: SyncConflictBody<JSONValue>, than rhs: SyncConflictBody<JSONValue>) -> Bool {
        if lhs.resolvedAt != rhs.resolvedAt { return lhs.resolvedAt < rhs.resolvedAt }
        return lhs.id.uuidString < rhs.id.uuidString
    }
}

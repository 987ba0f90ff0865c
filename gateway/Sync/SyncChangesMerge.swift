import SyncContracts

/// Merges one page of each area's changes feed into one page of the composed feed: the areas in their order
/// (profile, meals, metrics), each area's changes in its seq order, at most `limit` in all. An area cut short resumes
/// after its last change on the page; an area taken whole resumes at its own `nextCursor`. The page has more when an
/// area was cut or said it has more. Pure, so that paging is tested without any service.
struct SyncChangesMerge {
    /// The composed page and the cursor its `nextCursor` encodes.
    struct Result {
        var page: SyncChangePage<JSONValue>
        var next: SyncChangesCursor
    }

    /// An area page whose `nextCursor` is not a seq: the area broke the contract.
    struct MalformedAreaCursor: Error, Equatable {
        var area: SyncArea
    }

    /// Merges `pages` (one per area, each read from `cursor` with `limit`) into at most `limit` changes.
    static func merge(cursor: SyncChangesCursor, pages: [SyncArea: SyncChangePage<JSONValue>], limit: Int) throws -> Result {
        var changes: [SyncChange<JSONValue>] = []
        var next = cursor
        var hasMore = false
        for area in SyncArea.allCases {
            guard let page = pages[area] else { continue }
            let room = max(0, limit - changes.count)
            let taken = page.changes.prefix(room)
            changes.append(contentsOf: taken)
            if taken.count < page.changes.count {
                hasMore = true
                if let last = taken.last { next[area] = last.seq }
            } else {
                guard let areaNext = Int64(page.nextCursor), areaNext >= 0 else { throw MalformedAreaCursor(area: area) }
                next[area] = max(areaNext, cursor[area])
                hasMore = hasMore || page.hasMore
            }
        }
        return Result(page: SyncChangePage(changes: changes, nextCursor: next.encoded, hasMore: hasMore), next: next)
    }
}

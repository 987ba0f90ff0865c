import APIContracts

/// The query of an area's changes feed: `since` (the `nextCursor` of the last page; absent or `0`: everything) and
/// `limit` (1 to 500, default 100).
public struct SyncFeedQuery: Sendable, Equatable {
    public var since: Int64
    public var limit: Int

    public static let defaultLimit = 100
    public static let maximumLimit = 500

    /// 422 `invalid_cursor` for a `since` this API did not make (absent is 0; empty is no seq); 422 for a `limit` out of
    /// range.
    public init(since: String?, limit: String?) throws {
        if let limit {
            guard let value = Int(limit), (1...Self.maximumLimit).contains(value) else {
                throw APIError.invalid(["limit": "Use 1 to \(Self.maximumLimit)."])
            }
            self.limit = value
        } else {
            self.limit = Self.defaultLimit
        }
        guard let since else {
            self.since = 0
            return
        }
        // A seq this API answered: 1 to 18 digits (an empty value, a sign or a 19th digit was not made here).
        guard (1...18).contains(since.utf8.count), since.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
            let value = Int64(since)
        else { throw ListCursor.invalid }
        self.since = value
    }

    public init(since: Int64, limit: Int) {
        self.since = since
        self.limit = limit
    }

    /// 410 `sync_cursor_expired`: the cursor is older than the tombstones still kept, so deletions may be missing.
    public static let expired = APIError(
        .gone, code: "sync_cursor_expired",
        message: "This cursor is older than the deletions kept for syncing; download everything again (since=0).")
}

import SyncContracts
import Testing

@Suite("Changes-feed query")
struct SyncFeedQueryTests {
    @Test("since absent or 0 is a full download; limit defaults to 100")
    func defaults() throws {
        #expect(try SyncFeedQuery(since: nil, limit: nil) == SyncFeedQuery(since: 0, limit: 100))
        #expect(try SyncFeedQuery(since: "0", limit: "500") == SyncFeedQuery(since: 0, limit: 500))
        #expect(try SyncFeedQuery(since: "42", limit: "1") == SyncFeedQuery(since: 42, limit: 1))
        #expect(try SyncFeedQuery(since: "007", limit: nil) == SyncFeedQuery(since: 7, limit: 100))
        #expect(try SyncFeedQuery(since: "999999999999999999", limit: nil).since == 999_999_999_999_999_999, "18 digits")
    }

    @Test("a cursor this API did not make (empty, signed, over 18 digits) and a limit out of range are refused")
    func refusals() {
        for since in ["-1", "abc", "1.5", "99999999999999999999", "", "+5", " 5", "1000000000000000000"] {
            #expect(throws: (any Error).self) { try SyncFeedQuery(since: since, limit: nil) }
        }
        for limit in ["0", "501", "x"] {
            #expect(throws: (any Error).self) { try SyncFeedQuery(since: nil, limit: limit) }
        }
    }
}

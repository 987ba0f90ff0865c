import SyncContracts

/// How a write of an existing meal or custom meal settles with what is stored: strictly by version (`If-Match`, 409
/// when stale) or by last-write-wins on the write's stamp (the offline clients' rule).
enum WriteCondition: Sendable {
    /// The version the client read (`If-Match`).
    case ifMatch(Int)
    /// The write's stamp, and its body as JSON for the conflict log. `serverTime`: the client sent no `modifiedAt`, so
    /// the write is a live one, ordered by arrival: it always applies (a deleted entity stays deleted).
    case lastWriteWins(WriteStamp, request: JSONValue, serverTime: Bool)

    /// Whether the stored state is to be compared with the write's stamp (an offline client's write).
    var comparesStamps: Bool {
        if case .lastWriteWins(_, _, let serverTime) = self { !serverTime } else { false }
    }

    /// The stamp the written row gets, given the `stored` one: the client's for last-write-wins; for a live write the
    /// server's `now`, but never behind what is stored (so the next offline write compares with it correctly).
    func stamp(now: WriteStamp, stored: WriteStamp) -> WriteStamp {
        switch self {
        case .lastWriteWins(let stamp, _, false): stamp
        case .lastWriteWins(let stamp, _, true): max(stamp, WriteStamp(millis: stored.millis + 1, tiebreak: stamp.tiebreak))
        case .ifMatch: max(now, WriteStamp(millis: stored.millis + 1, tiebreak: now.tiebreak))
        }
    }
}

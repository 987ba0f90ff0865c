import Foundation
import NIOCore
import SyncContracts

/// How a write of an existing meal or custom meal settles with what is stored: strictly by version (`If-Match`, 409
/// when stale) or by last-write-wins on the write's stamp (the offline clients' rule).
enum WriteCondition: Sendable {
    /// The version the client read (`If-Match`).
    case ifMatch(Int)
    /// The write's stamp, and its body for the conflict log. `serverTime`: the client sent no `modifiedAt`, so the
    /// write is a live one, ordered by arrival: it always applies (a deleted entity stays deleted).
    case lastWriteWins(WriteStamp, body: ByteBuffer, serverTime: Bool)

    /// The incoming side of a recorded conflict: the write's stamp and its body as JSON (decoded only when a conflict is
    /// recorded); for an `If-Match` write, the version it expected at the server's `now`.
    func incomingSide(now: Date) -> SyncConflictSide<JSONValue> {
        switch self {
        case .lastWriteWins(let stamp, let body, _):
            SyncConflictSide(
                version: nil, modifiedAt: stamp.date,
                data: (try? JSONDecoder().decode(JSONValue.self, from: Data(body.readableBytesView))) ?? .null)
        case .ifMatch(let expected): SyncConflictSide(version: expected, modifiedAt: now, data: nil)
        }
    }

    /// What the write does to an entity stored at `version`, last written at `stamp`: 409 `version_conflict` for a
    /// stale `If-Match` (naming `resource`); an offline client's write is settled by `LastWriteWins`; a live write or
    /// a matching `If-Match` applies.
    func verdict(storedVersion version: Int, storedStamp stamp: WriteStamp, resource: String) throws -> LastWriteWins.Verdict {
        switch self {
        case .ifMatch(let expected):
            try RequestPreconditions.requireVersion(expected, current: version, of: resource)
            return .apply
        case .lastWriteWins(let incoming, _, false): return LastWriteWins.edit(incoming: incoming, stored: stamp)
        case .lastWriteWins(_, _, true): return .apply
        }
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

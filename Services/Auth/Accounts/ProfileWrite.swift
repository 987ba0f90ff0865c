import Foundation
import SyncContracts

/// What a profile write does to the stored profile under last-write-wins (writes without `If-Match`; the profile
/// has no `If-Match`, so every write). The same for the Postgres store and the in-memory one of the router tests.
enum ProfileWrite: Equatable {
    /// Store this next version (a new change number, published).
    case revise(Profile)
    /// The write is newer but asks for the values stored: store only its stamp (a new change number, no new
    /// version, nothing published), so an older write arriving later still loses to it.
    case restamp(WriteStamp)
    /// Nothing to store: the very write already stored (a replay), or a stale write asking for what is stored.
    case keep
    /// The write is older than the stored one and asks for something else: not applied, answered with the stored
    /// profile and `conflict: stale_write_ignored`, and recorded.
    case ignoreStale

    /// The decision on `update`, stamped `stamp`, of `current`, at `now`. Throws 422 naming every invalid field
    /// first: a stale write that is invalid is refused as any invalid write.
    static func decide(_ update: ProfileUpdate, stamp: WriteStamp, current: Profile, now: Date) throws -> ProfileWrite {
        let revised = try update.revision(of: current, at: now)
        switch LastWriteWins.edit(incoming: stamp, stored: current.writeStamp) {
        case .apply:
            guard var revised else { return .restamp(stamp) }
            revised.writeStamp = stamp
            return .revise(revised)
        case .unchanged:
            return .keep
        case .ignoreStale, .preserveDeletion:
            return revised == nil ? .keep : .ignoreStale
        }
    }
}

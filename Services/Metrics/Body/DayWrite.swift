import SyncContracts

/// A write to a day as last-write-wins sees it: its stamp, whether it removes a measurement, and whether the stamp is
/// the server's time (the write carried no `modifiedAt`).
struct DayWrite: Sendable, Equatable {
    var stamp: WriteStamp
    var isDeletion: Bool
    /// A write without `modifiedAt` is stamped on arrival: it loses only to a stored write stamped later than that
    /// millisecond (a client clock ahead of the server's), never to the tiebreak, so two quick writes of a client
    /// that sends no `modifiedAt` apply in the order they arrive.
    var isServerTimed: Bool

    init(stamp: WriteStamp, isDeletion: Bool = false, isServerTimed: Bool) {
        self.stamp = stamp
        self.isDeletion = isDeletion
        self.isServerTimed = isServerTimed
    }
}

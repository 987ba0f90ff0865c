/// The answer to a profile write: the profile as stored afterwards, and whether the write lost to a newer one.
struct ProfileWriteResult: Sendable, Equatable {
    var profile: Profile
    /// True when the write was older than the stored one and was not applied (`stale_write_ignored`).
    var staleWriteIgnored: Bool = false
}

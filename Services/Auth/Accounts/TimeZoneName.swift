import Foundation

/// The time zone names a profile accepts: IANA region names (`Europe/Berlin`, `America/Argentina/Buenos_Aires`,
/// `Etc/GMT+5`) that Foundation knows, and `UTC` or `GMT` alone, as devices name UTC.
enum TimeZoneName {
    /// Why `name` is not acceptable, or nil when it is.
    static func problem(with name: String) -> String? {
        // Abbreviations such as EST or offsets such as GMT+2 are left out: their rules are not a place's rules.
        if name == "UTC" || name == "GMT" || (name.contains("/") && TimeZone(identifier: name) != nil) { return nil }
        return "must be an IANA time zone name such as Europe/Berlin"
    }
}

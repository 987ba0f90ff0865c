import Foundation

/// A user's data version and the profile read at it: what a dashboard read starts from.
struct UserDataState: Sendable {
    var userId: UUID
    var version: Int64
    var profile: TrendsProfile
}

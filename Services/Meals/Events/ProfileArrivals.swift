import BackendKit
import Foundation

/// The meal writes of this replica that wait for their user's first `user.profile_updated`, keyed by user id
/// (`EventArrivals`).
typealias ProfileArrivals = EventArrivals<UUID>

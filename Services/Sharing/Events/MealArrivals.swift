import BackendKit
import Foundation

/// The share requests of this replica that wait for a meal's first event, keyed by meal id (`EventArrivals`).
typealias MealArrivals = EventArrivals<UUID>

import Foundation

/// What foods knows of an account from the events it consumed: when it first saw it and how many meals it has logged.
struct KnownAccount: Sendable, Equatable {
    var firstSeenAt: Date
    var loggedMeals: Int
}

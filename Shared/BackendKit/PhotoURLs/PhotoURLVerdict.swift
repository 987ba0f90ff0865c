import Foundation

/// The outcome of checking a photo URL.
public enum PhotoURLVerdict: Sendable, Equatable {
    case valid(expiresAt: Date)
    /// A query value is missing.
    case unsigned
    /// The signature does not match, or names a key the service does not hold.
    case invalid
    case expired
}

import Foundation

/// A photo URL handed to a client, and when it stops working.
public struct SignedPhotoURL: Sendable, Equatable {
    public var url: String
    public var expiresAt: Date

    /// The URL `url`, working until `expiresAt`.
    public init(url: String, expiresAt: Date) {
        self.url = url
        self.expiresAt = expiresAt
    }
}

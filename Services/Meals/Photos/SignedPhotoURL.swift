import Foundation

/// A photo URL handed to a client, and when it stops working.
struct SignedPhotoURL: Sendable, Equatable {
    var url: String
    var expiresAt: Date
}

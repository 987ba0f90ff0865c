import APIContracts
import Foundation
import WireJSON

/// What became of one item of `POST /api/sync/import`.
public struct SyncImportResult: Codable, Sendable, Equatable {
    public enum Status: String, Codable, Sendable {
        /// Stored now, with its events.
        case created
        /// Stored already (an earlier import or write of the same client id, or a newer write of it): nothing changed.
        case alreadyPresent = "already_present"
        /// Replaced an older, different value stored under the same id (a weigh-in of a day that had another weight).
        case updated
        /// Not stored; `error` says why.
        case rejected
    }

    /// `meal` or `weigh_in`.
    public var type: String
    /// The client's id of the item: a meal's UUID, a weigh-in's day.
    public var id: String
    public var status: Status
    /// Why it was rejected, as the error shape says it: `code`, `message`, `details`.
    public var error: Problem?

    /// The reason of a rejection.
    public struct Problem: Codable, Sendable, Equatable {
        public var code: String
        public var message: String
        public var details: [String: String]

        public init(code: String, message: String, details: [String: String] = [:]) {
            self.code = code
            self.message = message
            self.details = details
        }

        /// The problem an API error states.
        public init(_ error: APIError) {
            self.init(code: error.code, message: error.message, details: error.details)
        }
    }

    /// The result of an item that failed with `error`: a problem of the item (4xx) rejects it; a problem of the server
    /// (5xx: the food table still loading, a dependency down) is rethrown, failing the import to be retried whole
    /// rather than answering (and keeping, under an `Idempotency-Key`) a rejection the item did not earn.
    public static func rejected(type: String, id: String, because error: APIError) throws -> SyncImportResult {
        guard error.status.code < 500 else { throw error }
        return SyncImportResult(type: type, id: id, status: .rejected, error: Problem(error))
    }

    /// A client id that is a UUID is answered in lower case, whatever case the client sent (one spelling for every id).
    public init(type: String, id: String, status: Status, error: Problem? = nil) {
        self.type = type
        self.id = UUID(uuidString: id)?.lowercasedString ?? id
        self.status = status
        self.error = error
    }
}

import Foundation
import HummingbirdTesting
import SyncContracts
import Testing

/// A device's local copy of one user's data, kept as an offline-first app keeps it: every entity the composed changes
/// feed (`GET /api/sync/changes`) named, by type and id, with its version and state; a tombstone removes it.
struct DeviceReplica: Sendable {
    /// One entity as the device stores it.
    struct Entity: Equatable, Sendable {
        var version: Int
        var data: JSONValue
    }

    /// The parts of a feed entry the device reads (dates stay inside `data`).
    struct Change: Decodable, Sendable {
        var type: String
        var id: String
        var version: Int
        var deleted: Bool
        var data: JSONValue?
    }

    /// The parts of a feed page the device reads.
    struct Page: Decodable, Sendable {
        var changes: [Change]
        var nextCursor: String
        var hasMore: Bool
    }

    /// Where the feed was last read to; "0" on a new device (a full download).
    var cursor = "0"
    /// The entities by "type/id".
    var entities: [String: Entity] = [:]

    /// The live entities of `type`, by id.
    func all(_ type: String) -> [String: Entity] {
        Dictionary(
            uniqueKeysWithValues: entities.filter { $0.key.hasPrefix("\(type)/") }.map { (String($0.key.dropFirst(type.count + 1)), $0.value) })
    }

    /// Reads the feed from `cursor`, `limit` changes a page, until it has nothing more (a feed still answering
    /// `hasMore` after 100 pages is an issue); returns how many pages it read.
    @discardableResult
    mutating func sync(through gateway: any TestClientProtocol, token: String, limit: Int = 100) async throws -> Int {
        var pages = 0
        while pages < 100 {
            let response = try await gateway.call(.get, "/api/sync/changes?since=\(cursor)&limit=\(limit)", token: token)
            #expect(response.status == .ok, "the changes feed answered \(response.status): \(String(buffer: response.body))")
            let page = try response.decoded(Page.self)
            pages += 1
            #expect(page.changes.count <= limit, "a page of \(page.changes.count) changes for limit \(limit)")
            for change in page.changes {
                let key = "\(change.type)/\(change.id)"
                if change.deleted {
                    entities[key] = nil
                } else if let data = change.data {
                    entities[key] = Entity(version: change.version, data: data)
                } else {
                    Issue.record("the live change \(key) has no data")
                }
            }
            cursor = page.nextCursor
            if !page.hasMore { return pages }
        }
        Issue.record("the changes feed still had more after \(pages) pages")
        return pages
    }
}

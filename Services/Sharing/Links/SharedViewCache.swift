import Foundation
import NIOCore
import Synchronization

/// The encoded JSON view of each recently opened link with the stamp it was made from. A cached view is served only
/// when the link's current stamp (read on every request) is equal, so it is never stale on any replica; it only
/// saves reading and decoding the meal and encoding the answer. Bounded: past `capacity` links it starts over.
final class SharedViewCache: Sendable {
    /// One link's encoded view, its ETag digest and the stamp both were made from.
    struct Entry: Sendable {
        var stamp: SharedViewStamp
        var body: ByteBuffer
        var digest: String
    }

    private let entries = Mutex<[String: Entry]>([:])
    let capacity: Int

    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// The view of `token` made from exactly `stamp`.
    func view(of token: String, stamp: SharedViewStamp) -> Entry? {
        entries.withLock { entries in
            guard let entry = entries[token], entry.stamp == stamp else { return nil }
            return entry
        }
    }

    /// Whether a view of `token` is kept (at any stamp).
    func contains(_ token: String) -> Bool {
        entries.withLock { $0[token] != nil }
    }

    /// Keeps `entry` as the view of `token`, replacing any older one.
    func store(_ entry: Entry, of token: String) {
        entries.withLock { entries in
            if entries[token] == nil, entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
            entries[token] = entry
        }
    }
}

import Foundation
import ServiceDefaults
import WireJSON

/// The cursor of the composed conflict list: for each area, the area's own cursor of the page being read and how much
/// of that page the client already has. Opaque base64url text to clients (versioned JSON inside). Absent: the newest
/// conflicts of every area.
struct SyncConflictsCursor: Codable, Sendable, Equatable {
    /// Where one area's list stands.
    struct AreaPosition: Codable, Sendable, Equatable {
        /// The area's cursor of the page being read; nil for its first page.
        var cursor: String?
        /// How many conflicts of that page the client already has.
        var skip = 0
        /// The last conflict of that page the client has: skipping through it stays right when newer conflicts were
        /// recorded meanwhile on a first page (which shifts that page down).
        var after: UUID?
        /// The area has nothing older; it is not asked again.
        var done = false
    }

    /// The form version; only `1` is made and read.
    var v = 1
    var areas: [SyncArea: AreaPosition] = [:]

    /// Where `area` stands (its first page when the cursor does not say).
    func position(of area: SyncArea) -> AreaPosition { areas[area] ?? AreaPosition() }

    /// Whether every area's list was read to its end.
    var isFinished: Bool { SyncArea.allCases.allSatisfy { position(of: $0).done } }

    /// The text handed to clients.
    var encoded: String {
        let encoder = WireJSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return Base64URL.encode((try? encoder.encode(self)) ?? Data())
    }

    /// The cursor a client sent back (nil: the start); 422 `invalid_cursor` for anything this gateway did not
    /// make.
    static func decode(_ text: String?) throws -> SyncConflictsCursor {
        guard let text else { return SyncConflictsCursor() }
        guard text.count <= 4000, let data = Base64URL.decode(text),
            let cursor = try? JSONDecoder().decode(SyncConflictsCursor.self, from: data), cursor.v == 1,
            cursor.areas.values.allSatisfy({ $0.skip >= 0 && $0.skip < 100 && ($0.cursor?.count ?? 0) <= 1000 })
        else { throw ListCursor.invalid }
        return cursor
    }
}

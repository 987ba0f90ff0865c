import Foundation
import ServiceDefaults
import WireJSON

/// The cursor of the composed changes feed: where each area's feed stands (the seq of the last change the client
/// has of it). Clients see it as opaque base64url text; inside it is versioned JSON, so its form can change without
/// breaking cursors clients hold. Absent or `0` is every area at zero: a full download (empty is no cursor: 422).
struct SyncChangesCursor: Codable, Sendable, Equatable {
    /// The form version; only `1` is made and read.
    var v = 1
    var profile: Int64 = 0
    var meals: Int64 = 0
    var metrics: Int64 = 0

    /// A full download.
    static let start = SyncChangesCursor()

    init(profile: Int64 = 0, meals: Int64 = 0, metrics: Int64 = 0) {
        self.profile = profile
        self.meals = meals
        self.metrics = metrics
    }

    /// The seq an area's feed stands at.
    subscript(area: SyncArea) -> Int64 {
        get {
            switch area {
            case .profile: profile
            case .meals: meals
            case .metrics: metrics
            }
        }
        set {
            switch area {
            case .profile: profile = newValue
            case .meals: meals = newValue
            case .metrics: metrics = newValue
            }
        }
    }

    /// The text handed to clients.
    var encoded: String {
        let encoder = WireJSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return Base64URL.encode((try? encoder.encode(self)) ?? Data())
    }

    /// The cursor a client sent back; 422 `invalid_cursor` for anything this gateway did not make.
    static func decode(_ text: String?) throws -> SyncChangesCursor {
        guard let text, text != "0" else { return .start }
        guard text.count <= 400, let data = Base64URL.decode(text),
            let cursor = try? JSONDecoder().decode(SyncChangesCursor.self, from: data),
            cursor.v == 1, cursor.profile >= 0, cursor.meals >= 0, cursor.metrics >= 0
        else { throw ListCursor.invalid }
        return cursor
    }
}

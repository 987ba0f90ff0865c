import Foundation
import HTTPTypes

/// The web origins allowed to call the API from a browser (`GATEWAY_WEB_ORIGINS`, comma-separated, such as
/// `https://app.nutritionai.app`): CORS answers them, and cookie sessions are accepted only from them.
struct WebOrigins: Sendable, Equatable {
    private(set) var origins: Set<String>

    /// No web origin: no page may call the API with credentials.
    static let none = WebOrigins(allowing: [])

    private init(allowing origins: Set<String>) { self.origins = origins }

    /// Reads `scheme://host[:port]` origins; throws on anything else (a path, a wildcard).
    init(_ list: String) throws {
        var origins: Set<String> = []
        for item in list.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) where !item.isEmpty {
            guard let origin = Self.origin(of: item), origin == item.lowercased() else { throw InvalidOrigin(text: item) }
            origins.insert(origin)
        }
        self.origins = origins
    }

    /// Whether no origin is allowed.
    var isEmpty: Bool { origins.isEmpty }

    /// Whether `origin` (an `Origin` header) is allowed.
    func allows(_ origin: String?) -> Bool { origin.map { origins.contains($0.lowercased()) } ?? false }

    /// The origin of a request for the CSRF check: its `Origin`, or else the origin of its `Referer`.
    static func origin(of fields: HTTPFields) -> String? {
        if let origin = fields.value(of: .origin) { return origin }
        return fields.value(of: .referer).flatMap(origin(of:))
    }

    /// `scheme://host[:port]` of a URL, lower-cased; nil for anything that is not an http(s) URL.
    static func origin(of text: String) -> String? {
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(), ["http", "https"].contains(scheme),
            let host = components.host?.lowercased(), !host.isEmpty
        else { return nil }
        return "\(scheme)://\(host)" + (components.port.map { ":\($0)" } ?? "")
    }

    struct InvalidOrigin: Error {
        var text: String
    }
}

import Configuration
import Foundation
import ServiceDefaults

extension RouteTable {
    /// Replaces the addresses of each upstream named by `UPSTREAM_<NAME>_URLS` (several, comma-separated) or
    /// `UPSTREAM_<NAME>_URL` (one, as before replicas), then validates the table again; setting both for one upstream
    /// is refused, as is an address that is not an `http://` or `https://` base URL.
    mutating func overrideUpstreams(from config: ConfigReader) throws {
        for name in upstreams.keys.sorted() {
            let variable = "UPSTREAM_\(name.uppercased())_URL"
            let several = config.string(forKey: ConfigKey(["upstream", name, "urls"]))
            let one = config.string(forKey: ConfigKey(["upstream", name, "url"]))
            let texts: [String]
            switch (several, one) {
            case (.some, .some):
                throw ConfigurationError.invalid("\(variable)S", reason: "set it or \(variable), not both")
            case (.some(let list), nil):
                texts = list.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
                if texts.isEmpty { throw ConfigurationError.invalid("\(variable)S", reason: "names no address") }
            case (nil, .some(let text)):
                texts = [text]
            case (nil, nil):
                continue
            }
            upstreams[name] = try texts.map { text in
                guard let url = URL(string: text), Self.isUpstreamBase(url) else {
                    throw ConfigurationError.invalid(
                        several == nil ? variable : "\(variable)S", reason: "\(text) is not an http:// or https:// URL with a host")
                }
                return url
            }
        }
        try validate()
    }
}

/// A request path as logs may show it: segments shaped like a capability token (a share link's) become `:token`,
/// because whoever reads the log could otherwise open them.
public enum LoggedPath {
    public static func redacting(_ path: String) -> String {
        guard path.utf8.count >= CapabilityToken.length else { return path }
        return path.split(separator: "/", omittingEmptySubsequences: false)
            .map { CapabilityToken.isWellFormed($0) ? ":token" : String($0) }
            .joined(separator: "/")
    }
}

import Configuration
import Crypto
import Foundation
import ServiceDefaults

/// Symmetric keys named by an id: the current one, which signs or encrypts everything new, and earlier ones that are
/// still accepted, so a key can be rotated without breaking what the old one made (photo URLs, sealed vision keys,
/// sealed photos). Rotation: make a new key, move the current one to the list of previous keys, restart; drop it from
/// there once nothing made with it is in use.
public struct KeyRing: Sendable {
    public let currentId: String
    public let current: SymmetricKey
    public let previous: [String: SymmetricKey]

    /// A ring of `current` (named `currentId`) and the `previous` keys still accepted.
    public init(currentId: String, current: SymmetricKey, previous: [String: SymmetricKey] = [:]) {
        self.currentId = currentId
        self.current = current
        self.previous = previous
    }

    /// The key named `id`, current or previous; nil for an id the ring does not hold.
    public func key(id: String) -> SymmetricKey? {
        id == currentId ? current : previous[id]
    }

    /// Reads `currentKey` (`kid:base64url(32 random bytes)`) and `previousKeys` (a comma-separated list of the same);
    /// nil when `currentKey` is unset. `variable` and `previousVariable` name them in errors.
    public static func read(
        config: ConfigReader, currentKey: String, previousKeys: String, variable: String, previousVariable: String
    ) throws -> KeyRing? {
        guard let text = config.string(forKey: ConfigKey(currentKey), isSecret: true), !text.isEmpty else { return nil }
        guard let (currentId, current) = parse(text) else {
            throw ConfigurationError.invalid(variable, reason: "expected kid:base64url of 32 random bytes")
        }
        var previous: [String: SymmetricKey] = [:]
        for entry in (config.string(forKey: ConfigKey(previousKeys), isSecret: true) ?? "").split(separator: ",") {
            guard let (id, key) = parse(entry.trimmingCharacters(in: .whitespaces)), id != currentId, previous[id] == nil else {
                throw ConfigurationError.invalid(previousVariable, reason: "expected kid:base64url of 32 random bytes, kids unique")
            }
            previous[id] = key
        }
        return KeyRing(currentId: currentId, current: current, previous: previous)
    }

    /// A ring of one random key, for a process that was given none.
    public static func random(id: String) -> KeyRing {
        KeyRing(currentId: id, current: SymmetricKey(size: .bits256))
    }

    private static func parse(_ text: String) -> (String, SymmetricKey)? {
        let parts = text.split(separator: ":", maxSplits: 1).map(String.init)
        guard parts.count == 2, !parts[0].isEmpty, parts[0].count <= 64,
            parts[0].allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" || $0 == "." }),
            let bytes = Base64URL.decode(parts[1]), bytes.count == 32
        else { return nil }
        return (parts[0], SymmetricKey(data: bytes))
    }
}

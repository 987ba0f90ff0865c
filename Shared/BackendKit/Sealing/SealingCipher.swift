import Crypto
import Foundation

/// Seals bytes for storage with AES-256-GCM under the current key of `keys`, naming that key, and opens them with
/// whichever key of the ring sealed them. A `context` (what the bytes belong to, e.g. a photo's id and part) is
/// authenticated with them but not stored, so sealed bytes moved to another row do not open. The sealed form is
/// nonce (12 bytes), ciphertext and tag (16 bytes) together: 28 bytes more than the plain ones.
public struct SealingCipher: Sendable {
    /// Bytes a sealed value has beyond its plain bytes (nonce and tag).
    public static let overhead = 28

    public let keys: KeyRing

    /// A cipher sealing under `keys.current`.
    public init(keys: KeyRing) {
        self.keys = keys
    }

    /// `plain` sealed for `context`: the id of the key that sealed it, and nonce, ciphertext and tag together.
    public func seal(_ plain: some DataProtocol, context: String) throws -> (keyId: String, sealed: [UInt8]) {
        let box = try AES.GCM.seal(plain, using: keys.current, authenticating: Data(context.utf8))
        guard let combined = box.combined else { throw SealedBytesUnreadable(keyId: keys.currentId) }
        return (keys.currentId, Array(combined))
    }

    /// The plain bytes sealed for `context` under key `keyId`; throws `SealedBytesUnreadable` when the ring no longer
    /// holds that key, or the bytes or the context changed.
    public func open(_ sealed: some DataProtocol, keyId: String, context: String) throws -> [UInt8] {
        guard let key = keys.key(id: keyId) else { throw SealedBytesUnreadable(keyId: keyId) }
        do {
            return Array(try AES.GCM.open(AES.GCM.SealedBox(combined: sealed), using: key, authenticating: Data(context.utf8)))
        } catch {
            throw SealedBytesUnreadable(keyId: keyId)
        }
    }

    /// Whether a value sealed under `keyId` (nil: stored before sealing) is due to be sealed again under the current key.
    public func needsResealing(keyId: String?) -> Bool {
        keyId != keys.currentId
    }
}

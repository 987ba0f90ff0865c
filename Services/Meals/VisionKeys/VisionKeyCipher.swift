import Crypto
import Foundation

/// Seals users' API keys for storage with AES-256-GCM under the current key of `keys`, naming that key, and opens
/// them with whichever key sealed them. The user's id is authenticated with the key, so a sealed key moved to
/// another user's row does not open.
struct VisionKeyCipher: Sendable {
    let keys: KeyRing

    /// `apiKey` sealed for `userId`: the id of the key that sealed it, and nonce, ciphertext and tag together.
    func seal(_ apiKey: String, userId: UUID) throws -> (keyId: String, sealed: [UInt8]) {
        let box = try AES.GCM.seal(Data(apiKey.utf8), using: keys.current, authenticating: Self.context(userId))
        guard let combined = box.combined else { throw VisionKeyUnreadable() }
        return (keys.currentId, Array(combined))
    }

    /// The API key sealed for `userId`; throws `VisionKeyUnreadable` when the key that sealed it is gone or the bytes
    /// were changed.
    func open(_ sealed: [UInt8], keyId: String, userId: UUID) throws -> String {
        guard let key = keys.key(id: keyId) else { throw VisionKeyUnreadable() }
        do {
            let plain = try AES.GCM.open(AES.GCM.SealedBox(combined: sealed), using: key, authenticating: Self.context(userId))
            return String(decoding: plain, as: UTF8.self)
        } catch {
            throw VisionKeyUnreadable()
        }
    }

    private static func context(_ userId: UUID) -> Data {
        Data("nutritionai.vision-key.\(userId.uuidString.lowercased())".utf8)
    }
}

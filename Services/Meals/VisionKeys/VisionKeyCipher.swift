import BackendKit
import Foundation
import WireJSON

/// Seals users' API keys for storage with the shared `SealingCipher` (AES-256-GCM under the current key of `keys`,
/// naming that key) and opens them with whichever key sealed them. The user's id is authenticated with the key, so a
/// sealed key moved to another user's row does not open.
struct VisionKeyCipher: Sendable {
    let keys: KeyRing

    /// `apiKey` sealed for `userId`: the id of the key that sealed it, and nonce, ciphertext and tag together.
    func seal(_ apiKey: String, userId: UUID) throws -> (keyId: String, sealed: [UInt8]) {
        try SealingCipher(keys: keys).seal(Data(apiKey.utf8), context: Self.context(userId))
    }

    /// The API key sealed for `userId`; throws `VisionKeyUnreadable` when the key that sealed it is gone or the bytes
    /// were changed.
    func open(_ sealed: [UInt8], keyId: String, userId: UUID) throws -> String {
        do {
            return String(decoding: try SealingCipher(keys: keys).open(sealed, keyId: keyId, context: Self.context(userId)), as: UTF8.self)
        } catch {
            throw VisionKeyUnreadable()
        }
    }

    private static func context(_ userId: UUID) -> String {
        "nutritionai.vision-key.\(userId.lowercasedString)"
    }
}

import BackendKit
import Foundation
import NIOCore

/// A photo's plain bytes cut into parts of at most `PhotoRepository.partBytes`, each sealed only when it is stored
/// (`sealed(_:)`): a photo being stored is held once, plain, beside one sealed part, instead of also whole and sealed
/// (which, for a 10 MB upload, more than doubled the service's memory growth per photo).
struct SealedPhotoParts: Sendable {
    let plain: [UInt8]
    let cipher: SealingCipher
    /// What each part's seal is bound to (the photo's id and the part's number), so a part moved elsewhere does not open.
    let context: @Sendable (_ part: Int) -> String

    /// The number of parts (none for an empty photo).
    var count: Int { (plain.count + PhotoRepository.partBytes - 1) / PhotoRepository.partBytes }

    /// The id of the key every part is sealed under.
    var keyId: String { cipher.keys.currentId }

    /// Part `part` (from 0) sealed under the current key.
    func sealed(_ part: Int) throws -> ByteBuffer {
        let start = part * PhotoRepository.partBytes
        let bytes = plain[start..<min(start + PhotoRepository.partBytes, plain.count)]
        return ByteBuffer(bytes: try cipher.seal(bytes, context: context(part)).sealed)
    }
}

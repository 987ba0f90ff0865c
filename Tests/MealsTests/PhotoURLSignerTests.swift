import BackendKit
import Crypto
import Foundation
import ServiceDefaults
import Synchronization
import TestSupport
import Testing

@testable import MealsService

@Suite("Signed photo URLs")
struct PhotoURLSignerTests {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)
    static let photoId = UUID()

    /// A wall clock that only moves when a test says so.
    final class TestDate: Sendable {
        private let current: Mutex<Date>
        init(_ date: Date) { current = Mutex(date) }
        var now: Date { current.withLock { $0 } }
        func set(_ date: Date) { current.withLock { $0 = date } }
    }

    /// A signer on a clock the test moves.
    static func signer(keys: KeyRing, clock: TestDate) -> PhotoURLSigner {
        PhotoURLSigner(keys: keys, lifetime: 900, now: { clock.now })
    }

    /// The query values of `url`.
    static func query(_ url: String) -> [String: String] {
        Dictionary(uniqueKeysWithValues: (URLComponents(string: url)?.queryItems ?? []).map { ($0.name, $0.value ?? "") })
    }

    static func verify(_ signer: PhotoURLSigner, _ url: String, photoId: UUID = photoId) -> PhotoURLVerdict {
        let values = query(url)
        return signer.verify(photoId: photoId, expires: values["expires"], keyId: values["kid"], signature: values["sig"])
    }

    @Test("a URL works until it expires, 15 minutes rounded up to the minute; then it is expired")
    func lifetime() {
        let clock = TestDate(Self.start.addingTimeInterval(7))
        let signer = Self.signer(keys: KeyRing.random(id: "k1"), clock: clock)
        let signed = signer.url(for: Self.photoId)
        #expect(signed.url.hasPrefix("/media/photos/\(Self.photoId.uuidString.lowercased())?expires="))
        #expect(signed.expiresAt == Self.start.addingTimeInterval(960), "15 minutes after, rounded up to the minute")
        #expect(Self.verify(signer, signed.url) == .valid(expiresAt: signed.expiresAt))
        clock.set(clock.now.addingTimeInterval(30))
        #expect(signer.url(for: Self.photoId) == signed, "URLs made within the minute are the same, so caches can keep them")
        clock.set(signed.expiresAt)
        #expect(Self.verify(signer, signed.url) == .expired)
    }

    @Test("missing values are unsigned; another photo, a changed expiry, a wrong signature or an unknown key are invalid")
    func refusals() {
        let clock = TestDate(Self.start)
        let signer = Self.signer(keys: KeyRing.random(id: "k1"), clock: clock)
        let url = signer.url(for: Self.photoId).url
        let values = Self.query(url)
        #expect(signer.verify(photoId: Self.photoId, expires: values["expires"], keyId: values["kid"], signature: String?.none) == .unsigned)
        #expect(signer.verify(photoId: Self.photoId, expires: String?.none, keyId: values["kid"], signature: values["sig"]) == .unsigned)
        #expect(Self.verify(signer, url, photoId: UUID()) == .invalid)
        let later = String(Int(values["expires"]!)! + 86_400)
        #expect(signer.verify(photoId: Self.photoId, expires: later, keyId: "k1", signature: values["sig"]) == .invalid)
        #expect(signer.verify(photoId: Self.photoId, expires: values["expires"], keyId: "k2", signature: values["sig"]) == .invalid)
        #expect(signer.verify(photoId: Self.photoId, expires: values["expires"], keyId: "k1", signature: "not base64!") == .invalid)
        let other = Self.signer(keys: KeyRing.random(id: "k1"), clock: clock)
        #expect(Self.verify(other, url) == .invalid, "a signature of another key with the same id does not verify")
    }

    @Test("rotation: URLs signed with the previous key still verify; new ones use the current key")
    func rotation() {
        let clock = TestDate(Self.start)
        let oldKey = SymmetricKey(size: .bits256)
        let before = Self.signer(keys: KeyRing(currentId: "old", current: oldKey), clock: clock)
        let oldURL = before.url(for: Self.photoId).url
        let after = Self.signer(keys: KeyRing(currentId: "new", current: SymmetricKey(size: .bits256), previous: ["old": oldKey]), clock: clock)
        #expect(Self.verify(after, oldURL) != .invalid)
        #expect(Self.query(after.url(for: Self.photoId).url)["kid"] == "new")
        let dropped = Self.signer(keys: KeyRing(currentId: "new", current: SymmetricKey(size: .bits256)), clock: clock)
        #expect(Self.verify(dropped, oldURL) == .invalid, "a key dropped from the ring no longer verifies")
    }

    @Test("key rings read kid:base64url of 32 bytes; anything else stops the start naming the variable")
    func keyRingSettings() throws {
        let key = "k1:\(Base64URL.encode([UInt8](repeating: 1, count: 32)))"
        let previous = "k0:\(Base64URL.encode([UInt8](repeating: 2, count: 32)))"
        func read(_ values: [String: String]) throws -> KeyRing? {
            try KeyRing.read(
                config: ConfigReaderFactory.make(values), currentKey: "meals.photo.url.key", previousKeys: "meals.photo.url.previous.keys",
                variable: "MEALS_PHOTO_URL_KEY", previousVariable: "MEALS_PHOTO_URL_PREVIOUS_KEYS")
        }
        #expect(try read([:]) == nil)
        let ring = try #require(try read(["meals.photo.url.key": key, "meals.photo.url.previous.keys": previous]))
        #expect(ring.currentId == "k1" && ring.key(id: "k0") != nil && ring.key(id: "k9") == nil)
        for (current, previousKeys, variable) in [
            ("k1:short", "", "MEALS_PHOTO_URL_KEY"), ("no-colon", "", "MEALS_PHOTO_URL_KEY"),
            (key, "k1:\(key.dropFirst(3))", "MEALS_PHOTO_URL_PREVIOUS_KEYS"),
            (key, "k0:zz", "MEALS_PHOTO_URL_PREVIOUS_KEYS"),
        ] {
            #expect(throws: ConfigurationError.self, "\(variable)") {
                try read(["meals.photo.url.key": current, "meals.photo.url.previous.keys": previousKeys])
            }
        }
    }
}

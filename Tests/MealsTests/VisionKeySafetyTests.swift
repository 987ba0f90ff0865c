import BackendKit
import Crypto
import Foundation
import Testing

@testable import MealsService

@Suite("Users' vision keys: sealing and base URLs")
struct VisionKeySafetyTests {
    @Test("a sealed key opens for its user only, under the key that sealed it, also after a rotation; never in plain text")
    func sealing() throws {
        let oldKey = SymmetricKey(size: .bits256)
        let cipher = VisionKeyCipher(keys: KeyRing(currentId: "old", current: oldKey))
        let user = UUID()
        let secret = "sk-test-0123456789"
        let (keyId, sealed) = try cipher.seal(secret, userId: user)
        #expect(keyId == "old" && !Data(sealed).contains(Data(secret.utf8)))
        #expect(try cipher.open(sealed, keyId: keyId, userId: user) == secret)
        #expect(throws: VisionKeyUnreadable.self, "bound to its user") { try cipher.open(sealed, keyId: keyId, userId: UUID()) }
        var altered = sealed
        altered[altered.count / 2] ^= 1
        #expect(throws: VisionKeyUnreadable.self) { try cipher.open(altered, keyId: keyId, userId: user) }
        let rotated = VisionKeyCipher(keys: KeyRing(currentId: "new", current: SymmetricKey(size: .bits256), previous: ["old": oldKey]))
        #expect(try rotated.open(sealed, keyId: "old", userId: user) == secret)
        #expect(try rotated.seal(secret, userId: user).keyId == "new")
        let dropped = VisionKeyCipher(keys: KeyRing(currentId: "new", current: SymmetricKey(size: .bits256)))
        #expect(throws: VisionKeyUnreadable.self) { try dropped.open(sealed, keyId: "old", userId: user) }
    }

    @Test("addresses: private, loopback, link-local, shared, reserved and embedded private IPv4 are not public")
    func addresses() {
        for text in [
            "10.1.2.3", "127.0.0.1", "0.0.0.0", "169.254.169.254", "172.16.0.1", "172.31.255.255", "192.168.0.1", "100.64.0.1",
            "192.0.2.1", "198.18.0.1", "224.0.0.1", "255.255.255.255", "::1", "::", "fc00::1", "fd12::1", "fe80::1", "ff02::1",
            "::ffff:10.0.0.1", "64:ff9b::a00:1", "2001:db8::1",
        ] {
            #expect(IPAddress(text)?.isPublic == false, "\(text)")
        }
        for text in ["8.8.8.8", "1.1.1.1", "172.32.0.1", "100.128.0.1", "2606:4700:4700::1111", "::ffff:8.8.8.8"] {
            #expect(IPAddress(text)?.isPublic == true, "\(text)")
        }
        #expect(IPAddress("api.openai.com") == nil && IPAddress("10.0.0") == nil)
    }

    @Test("base URLs: https to a public address passes; http, private addresses and local names do not, unless the operator allows the host")
    func baseURLs() async {
        let policy = VisionBaseURLPolicy(allowedPrivateHosts: ["10.0.0.5"])
        let publicURL = try? await policy.check("https://8.8.8.8/v1/").get()
        let allowedURL = try? await policy.check("http://10.0.0.5:11434/v1").get()
        #expect(publicURL?.absoluteString == "https://8.8.8.8/v1")
        #expect(allowedURL?.absoluteString == "http://10.0.0.5:11434/v1", "the operator's own host may be private and http")
        for url in [
            "http://8.8.8.8/v1", "https://10.0.0.6/v1", "https://localhost/v1", "https://x.localhost/v1", "https://[fe80::1]/v1",
            "https://a:b@8.8.8.8/v1", "https://8.8.8.8/v1#f", "file:///etc/passwd", "gopher://8.8.8.8", "",
        ] {
            let checked = try? await policy.check(url).get()
            #expect(checked == nil, "\(url)")
        }
    }
}

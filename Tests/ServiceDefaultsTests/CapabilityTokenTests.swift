import Foundation
import ServiceDefaults
import Testing

@Suite("Capability tokens")
struct CapabilityTokenTests {
    @Test("tokens carry 256 random bits as 43 URL-safe characters and do not repeat")
    func generated() {
        let tokens = (0..<2_000).map { _ in CapabilityToken.generate() }
        #expect(Set(tokens).count == tokens.count)
        for token in tokens.prefix(50) {
            #expect(CapabilityToken.isWellFormed(token))
            #expect(Base64URL.decode(token)?.count == 32)
        }
        // Every position takes many values: no fixed prefix or counter.
        for position in [0, 21, 42] {
            let values = Set(tokens.map { $0[$0.index($0.startIndex, offsetBy: position)] })
            #expect(values.count > (position == 42 ? 3 : 40), "position \(position)")
        }
    }

    @Test("anything else is not a token: wrong length, other alphabets, markup")
    func malformed() {
        #expect(!CapabilityToken.isWellFormed(""))
        #expect(!CapabilityToken.isWellFormed(String(repeating: "A", count: 42)))
        #expect(!CapabilityToken.isWellFormed(String(repeating: "A", count: 44)))
        #expect(!CapabilityToken.isWellFormed(String(repeating: "+", count: 43)))
        #expect(!CapabilityToken.isWellFormed("<script>" + String(repeating: "A", count: 35)))
        #expect(CapabilityToken.isWellFormed(String(repeating: "-", count: 43)))
    }

    @Test("logged paths show :token instead of a token, and keep ids and everything else")
    func loggedPaths() {
        let token = CapabilityToken.generate()
        #expect(LoggedPath.redacting("/shared/\(token)/card.svg") == "/shared/:token/card.svg")
        #expect(LoggedPath.redacting("/api/share/\(token)") == "/api/share/:token")
        let id = "0b7f7e0c-31c5-4a8e-9a54-6f0d2c1e9b11"
        #expect(LoggedPath.redacting("/api/meals/\(id)/photo") == "/api/meals/\(id)/photo")
        #expect(LoggedPath.redacting("/health/live") == "/health/live")
    }
}

import Foundation
import ServiceDefaults
import Testing

@testable import SharingService

@Suite("Share tokens")
struct ShareTokenTests {
    @Test("tokens carry 256 random bits as 43 URL-safe characters and do not repeat")
    func generated() {
        let tokens = (0..<2_000).map { _ in ShareToken.generate() }
        #expect(Set(tokens).count == tokens.count)
        for token in tokens.prefix(50) {
            #expect(ShareToken.isWellFormed(token))
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
        #expect(!ShareToken.isWellFormed(""))
        #expect(!ShareToken.isWellFormed(String(repeating: "A", count: 42)))
        #expect(!ShareToken.isWellFormed(String(repeating: "A", count: 44)))
        #expect(!ShareToken.isWellFormed(String(repeating: "+", count: 43)))
        #expect(!ShareToken.isWellFormed("<script>" + String(repeating: "A", count: 35)))
        #expect(ShareToken.isWellFormed(String(repeating: "-", count: 43)))
    }
}

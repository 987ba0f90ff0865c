import AccessTokens
import Foundation
import JWTKit
import Testing

@Suite("Access token verification")
struct AccessTokenVerifierTests {
    let tokens = TokenFactory()

    func verifier() async throws -> AccessTokenVerifier {
        let verifier = AccessTokenVerifier(policy: tokens.policy)
        try await verifier.replaceKeys(jwksJSON: tokens.jwks)
        return verifier
    }

    func refusal(_ token: String, now: Date = Date(), verifier: AccessTokenVerifier? = nil) async throws -> AccessTokenError? {
        let verifier = if let verifier { verifier } else { try await self.verifier() }
        do {
            _ = try await verifier.verify(token, now: now)
            return nil
        } catch {
            return error
        }
    }

    @Test("a token signed by the trusted key proves its user and session")
    func validToken() async throws {
        let verified = try await verifier().verify(try await tokens.token())
        #expect(verified.userId == tokens.userId)
        #expect(verified.sessionId == tokens.sessionId)
    }

    @Test("forgeries are refused before or at the signature check")
    func forgeries() async throws {
        #expect(try await refusal(try tokens.unsignedToken()) == .malformed, "alg none with the empty signature")
        #expect(try await refusal(try tokens.unsignedToken() + "AAAA") == .unsupportedAlgorithm, "alg none with any signature")
        #expect(try await refusal(try await tokens.hmacConfusionToken()) == .unsupportedAlgorithm)
        #expect(try await refusal(try await tokens.token(signer: try EdDSA.PrivateKey(curve: .ed25519))) == .badSignature)
        #expect(try await refusal(try await tokens.token(kid: "someone-elses-key")) == .unknownKey)
        #expect(try await refusal(try await tokens.token(withHeader: #"{"alg":"EdDSA","typ":"JWT"}"#)) == .unknownKey)
        #expect(try await refusal(try await tokens.token(withHeader: #"{"alg":"EdDSA","kid":"test-key","crit":["exp"]}"#)) == .unsupportedAlgorithm)
        #expect(try await refusal("not-a-token") == .malformed)
        #expect(try await refusal("a.b.c") == .malformed)
        #expect(try await refusal(String(repeating: "a", count: 5000)) == .tooLarge)
    }

    @Test("issuer, audience and validity times are enforced")
    func claimsChecks() async throws {
        let now = Date()
        #expect(try await refusal(try await tokens.token(tokens.claims(issuer: "someone-else"))) == .wrongIssuer)
        #expect(try await refusal(try await tokens.token(tokens.claims(audience: "another-api"))) == .wrongAudience)
        let expired = try await tokens.token(tokens.claims(issuedAt: now.addingTimeInterval(-1000), expiresAt: now.addingTimeInterval(-1)))
        #expect(try await refusal(expired, now: now) == .expired)
        let future = try await tokens.token(tokens.claims(issuedAt: now.addingTimeInterval(600), expiresAt: now.addingTimeInterval(1500)))
        #expect(try await refusal(future, now: now) == .notYetValid)
    }

    @Test("a cached token still expires on time")
    func cacheRespectsExpiry() async throws {
        let verifier = try await verifier()
        let now = Date()
        let token = try await tokens.token(tokens.claims(issuedAt: now, expiresAt: now.addingTimeInterval(60)))
        _ = try await verifier.verify(token, now: now)
        _ = try await verifier.verify(token, now: now.addingTimeInterval(30))
        #expect(try await refusal(token, now: now.addingTimeInterval(61), verifier: verifier) == .expired)
    }

    @Test("without keys nothing verifies; a key withdrawn from the JWKS stops its cached tokens at once")
    func keyLifecycle() async throws {
        let empty = AccessTokenVerifier(policy: tokens.policy)
        let token = try await tokens.token()
        #expect(try await refusal(token, verifier: empty) == .keysUnavailable)

        let verifier = try await verifier()
        _ = try await verifier.verify(token)
        var rotated = TokenFactory()
        rotated.keyId = "rotated"
        try await verifier.replaceKeys(jwksJSON: rotated.jwks)
        #expect(try await refusal(token, verifier: verifier) == .unknownKey)
    }
}

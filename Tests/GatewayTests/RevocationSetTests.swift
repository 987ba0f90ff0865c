import AccessTokens
import Foundation
import Testing

/// The revocations a gateway keeps: per session, per user with an issue-time cutoff, and only while they matter.
@Suite("Revocation set")
struct RevocationSetTests {
    let userId = UUID()
    let sessionId = UUID()
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    func token(session: UUID? = nil, user: UUID? = nil, issuedAt: Date? = nil) -> VerifiedAccessToken {
        let issuedAt = issuedAt ?? now.addingTimeInterval(-60)
        return VerifiedAccessToken(
            userId: user ?? userId, sessionId: session ?? sessionId, issuedAt: issuedAt, expiresAt: issuedAt.addingTimeInterval(900))
    }

    @Test("a revoked session refuses every token of that session and no other session's")
    func sessionRevocation() {
        let set = RevocationSet()
        set.apply([Revocation(userId: userId, sessionId: sessionId, revokedAt: now, expiresAt: now.addingTimeInterval(930))], now: now)
        #expect(set.isRevoked(token()))
        #expect(set.isRevoked(token(issuedAt: now.addingTimeInterval(5))), "an ended session's tokens are refused whenever issued")
        #expect(!set.isRevoked(token(session: UUID())), "the user's other sessions keep working")
        #expect(set.count == 1)
    }

    @Test("a user-wide revocation refuses the user's tokens issued up to its cutoff, and not later ones")
    func userCutoff() {
        let set = RevocationSet()
        set.apply([Revocation(userId: userId, sessionId: nil, revokedAt: now, expiresAt: now.addingTimeInterval(930))], now: now)
        #expect(set.isRevoked(token(session: UUID(), issuedAt: now.addingTimeInterval(-600))))
        #expect(set.isRevoked(token(session: UUID(), issuedAt: now)), "a token issued in the same instant is refused")
        #expect(!set.isRevoked(token(session: UUID(), issuedAt: now.addingTimeInterval(1))))
        #expect(!set.isRevoked(token(user: UUID())), "other users are unaffected")
    }

    @Test("repeated and later user-wide revocations keep the latest cutoff; the same revocation twice counts once")
    func repeats() {
        let set = RevocationSet()
        let first = Revocation(userId: userId, sessionId: nil, revokedAt: now, expiresAt: now.addingTimeInterval(930))
        let later = Revocation(userId: userId, sessionId: nil, revokedAt: now.addingTimeInterval(60), expiresAt: now.addingTimeInterval(990))
        set.apply([first, first], now: now)
        set.apply([later, first], now: now)
        #expect(set.count == 1)
        #expect(set.isRevoked(token(session: UUID(), issuedAt: now.addingTimeInterval(30))))
    }

    @Test("a revocation is forgotten once it expires, so the set holds one token lifetime of sign-outs")
    func expiry() {
        let set = RevocationSet()
        set.apply(
            [
                Revocation(userId: userId, sessionId: sessionId, revokedAt: now, expiresAt: now.addingTimeInterval(930)),
                Revocation(userId: UUID(), sessionId: nil, revokedAt: now, expiresAt: now.addingTimeInterval(930)),
            ], now: now)
        #expect(set.count == 2)
        set.apply([], now: now.addingTimeInterval(931))
        #expect(set.count == 0)
        #expect(!set.isRevoked(token()))
        set.apply(
            [Revocation(userId: userId, sessionId: sessionId, revokedAt: now, expiresAt: now.addingTimeInterval(930))],
            now: now.addingTimeInterval(931))
        #expect(set.count == 0, "an already expired revocation is not kept")
    }

    @Test("a page survives its JSON form with fractional seconds, so a user-wide cutoff is not rounded away")
    func pageCoding() throws {
        let revokedAt = Date(timeIntervalSince1970: 1_800_000_000.25)
        let page = RevocationPage(
            revocations: [Revocation(userId: userId, sessionId: nil, revokedAt: revokedAt, expiresAt: revokedAt.addingTimeInterval(930))],
            cursor: "42")
        let decoded = try RevocationPage.decoded(from: try page.encoded())
        #expect(decoded.cursor == "42")
        let cutoff = try #require(decoded.revocations.first?.revokedAt)
        #expect(abs(cutoff.timeIntervalSince(revokedAt)) < 0.002)
    }
}

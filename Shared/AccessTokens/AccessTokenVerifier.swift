import Foundation
import JWTKit
import Synchronization

/// Verifies NutritionAI access tokens against the auth service's published keys (EdDSA, Ed25519 only).
/// Refuses, before any signature work, oversized tokens, any `alg` but EdDSA (so `none` and HMAC confusion
/// fail), `crit` headers, and a `kid` it did not fetch itself; then checks signature, issuer, audience and times.
/// Verified tokens are cached until they expire or their session is revoked (`applyRevocations`).
public final class AccessTokenVerifier: Sendable {
    /// The keys currently trusted; replaced whole on every refresh.
    private struct KeySet: Sendable {
        var collection: JWTKeyCollection?
        var keyIds: Set<String> = []
    }

    public let policy: AccessTokenPolicy
    private let keys = Mutex(KeySet())
    private let cache: VerifiedTokenCache
    /// Ended sessions and users, checked on every answer, cached or not.
    public let revocations = RevocationSet()
    private let unknownKeyContinuation: AsyncStream<Void>.Continuation
    /// Yields when a token names a key id not in the set: a hint that the auth service rotated keys, so the
    /// refresher may fetch early. Never more than one pending element.
    public let unknownKeySightings: AsyncStream<Void>

    public init(policy: AccessTokenPolicy, cacheCapacity: Int = 50_000) {
        self.policy = policy
        self.cache = VerifiedTokenCache(capacity: cacheCapacity)
        (unknownKeySightings, unknownKeyContinuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// Whether keys have been loaded at least once.
    public var hasKeys: Bool { keys.withLock { $0.collection != nil } }

    /// The key ids currently trusted.
    public var keyIds: Set<String> { keys.withLock { $0.keyIds } }

    /// Replaces the trusted keys with the Ed25519 keys of a JWKS document. Throws, keeping the old keys, when the
    /// document is unreadable or has no usable key. Clears the cache when a key disappeared, so tokens signed
    /// by a withdrawn key stop working at once.
    public func replaceKeys(jwksJSON: Data) async throws {
        let document = try JSONDecoder().decode(JWKS.self, from: jwksJSON)
        let usable = document.keys.filter { key in
            key.keyType == .octetKeyPair && key.curve?.rawValue == "Ed25519" && key.keyIdentifier != nil
                && (key.algorithm == nil || key.algorithm == .eddsa)
        }
        guard !usable.isEmpty else { throw AccessTokenKeysError.noUsableKey }
        let collection = JWTKeyCollection()
        var keyIds = Set<String>()
        for key in usable {
            guard let keyId = key.keyIdentifier?.string, let x = key.x else { continue }
            try await collection.add(eddsa: EdDSA.PublicKey(x: x, curve: .ed25519), kid: JWKIdentifier(string: keyId))
            keyIds.insert(keyId)
        }
        let removed = keys.withLock { current in
            let removed = !current.keyIds.isSubset(of: keyIds)
            current = KeySet(collection: collection, keyIds: keyIds)
            return removed
        }
        if removed { cache.removeAll() }
    }

    /// The caller of `token` when it was verified before and has not expired at `now`, without any other work;
    /// nil otherwise (then `verify` decides). For paths that must not suspend, such as the gateway's pass-through.
    public func cachedVerification(of token: String, now: Date = Date()) -> VerifiedAccessToken? {
        guard token.utf8.count <= policy.maxTokenBytes, let cached = cache.lookup(token, now: now) else { return nil }
        return revocations.isRevoked(cached) ? nil : cached
    }

    /// Whether `verified`, which this verifier proved before, still holds at `now`: not expired, its session and user
    /// not revoked. For a caller that remembers the last token it was given (the gateway's connections), in place of
    /// `cachedVerification`'s look-up.
    public func stillHolds(_ verified: VerifiedAccessToken, now: Date = Date()) -> Bool {
        verified.expiresAt > now && !revocations.isRevoked(verified)
    }

    /// Adds `revocations` to the known ones and drops the cached tokens they refuse, so neither the pass-through
    /// nor the router accepts those tokens from now on.
    public func applyRevocations(_ revocations: [Revocation], now: Date = Date()) {
        self.revocations.apply(revocations, now: now)
        guard !revocations.isEmpty else { return }
        cache.removeAll(where: self.revocations.isRevoked)
    }

    /// Verifies `token` at `now`, returning who it proves; throws the first reason to refuse it.
    public func verify(_ token: String, now: Date = Date()) async throws(AccessTokenError) -> VerifiedAccessToken {
        guard token.utf8.count <= policy.maxTokenBytes else { throw .tooLarge }
        if let cached = cache.lookup(token, now: now) {
            guard !revocations.isRevoked(cached) else { throw .revoked }
            return cached
        }
        let keySet = keys.withLock { $0 }
        guard let collection = keySet.collection else { throw .keysUnavailable }
        guard let header = TokenHeader.parse(token) else { throw .malformed }
        guard header.alg == "EdDSA", header.crit == nil else { throw .unsupportedAlgorithm }
        guard let keyId = header.kid, keySet.keyIds.contains(keyId) else {
            unknownKeyContinuation.yield()
            throw .unknownKey
        }
        let claims: AccessTokenClaims
        do {
            claims = try await collection.verify(token, as: AccessTokenClaims.self)
        } catch {
            throw (error as? JWTError)?.errorType == .signatureVerificationFailed ? .badSignature : .malformed
        }
        let verified = try check(claims, now: now)
        // Checked on every cache hit too, so a revocation applied while this check ran still refuses the token.
        guard !revocations.isRevoked(verified) else { throw .revoked }
        cache.store(token, verified, now: now)
        return verified
    }

    /// The checks on a token whose signature is good.
    private func check(_ claims: AccessTokenClaims, now: Date) throws(AccessTokenError) -> VerifiedAccessToken {
        let leeway = TimeInterval(policy.leeway.components.seconds)
        guard claims.issuer.value == policy.issuer else { throw .wrongIssuer }
        guard claims.audience.value.contains(policy.audience) else { throw .wrongAudience }
        guard claims.expiresAt.value > now else { throw .expired }
        if let notBefore = claims.notBefore, notBefore.value > now.addingTimeInterval(leeway) { throw .notYetValid }
        guard claims.issuedAt.value <= now.addingTimeInterval(leeway) else { throw .notYetValid }
        guard let userId = UUID(uuidString: claims.subject.value), let sessionId = UUID(uuidString: claims.sessionId) else {
            throw .invalidClaims
        }
        return VerifiedAccessToken(userId: userId, sessionId: sessionId, issuedAt: claims.issuedAt.value, expiresAt: claims.expiresAt.value)
    }
}

/// A JWKS document the verifier cannot use.
public enum AccessTokenKeysError: Error, CustomStringConvertible {
    case noUsableKey

    public var description: String { "the JWKS document has no Ed25519 key with a kid" }
}

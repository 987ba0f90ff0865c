import AsyncHTTPClient
import Crypto
import Foundation
import Logging

/// The vision clients of users' own keys: one per user and key, each with the server's retries and time limits and a
/// circuit breaker of its own, so a key that fails opens only its own circuit. The most recently used `capacity`
/// clients are kept; the keys live only in these clients' memory.
actor UserVisionProviders {
    private let template: VisionSettings?
    private let httpClient: HTTPClient
    private let logger: Logger
    private let capacity: Int
    private var clients: [String: OpenAICompatibleVisionClient] = [:]
    /// Fingerprints, least recently used first.
    private var recency: [String] = []

    /// `template` gives the retries, time limits and breaker of every user's client (the defaults without one).
    init(template: VisionSettings?, httpClient: HTTPClient, logger: Logger, capacity: Int = 1024) {
        self.template = template
        self.httpClient = httpClient
        self.logger = logger
        self.capacity = capacity
    }

    /// The client of `key`, made on first use.
    func provider(for key: UserVisionKey, userId: UUID) -> OpenAICompatibleVisionClient {
        let fingerprint = Self.fingerprint(key, userId: userId)
        recency.removeAll { $0 == fingerprint }
        recency.append(fingerprint)
        if let client = clients[fingerprint] { return client }
        var settings = template ?? VisionSettings(baseURL: key.baseURL)
        settings.baseURL = key.baseURL
        settings.apiKey = key.apiKey
        settings.model = key.model
        let client = OpenAICompatibleVisionClient(settings: settings, httpClient: httpClient, logger: logger, keyOwner: "user")
        clients[fingerprint] = client
        while recency.count > capacity { clients[recency.removeFirst()] = nil }
        return client
    }

    private static func fingerprint(_ key: UserVisionKey, userId: UUID) -> String {
        let text = [userId.uuidString, key.baseURL.absoluteString, key.model, key.apiKey].joined(separator: "\n")
        return SHA256.hash(data: Data(text.utf8)).map { String(format: "%02x", $0) }.joined()
    }
}

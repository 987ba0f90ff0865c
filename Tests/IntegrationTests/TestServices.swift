import BackendKit
import Foundation
import HummingbirdTesting
import ServiceDefaults
import TestSupport
import Testing

@testable import AuthService
@testable import MealsService

/// Building blocks shared by the harnesses.
enum TestServices {
    /// The photo encryption key of the meals and sharing services under test (`MEALS_PHOTO_ENCRYPTION_KEY`,
    /// `SHARING_PHOTO_ENCRYPTION_KEY`), and a previous key they still open (`*_PHOTO_ENCRYPTION_PREVIOUS_KEYS`), under
    /// which tests seal rows to see them opened and sealed again.
    static let photoKey = "itest:\(Base64URL.encode((0..<32).map { _ in UInt8.random(in: .min ... .max) }))"
    static let previousPhotoKey = "itest-old:\(Base64URL.encode((0..<32).map { _ in UInt8.random(in: .min ... .max) }))"
    /// The key meals checks photo URLs with and trends signs history thumbnail URLs with.
    static let photoURLKey = "itest:\(Base64URL.encode((0..<32).map { _ in UInt8.random(in: .min ... .max) }))"

    /// The services' ring of photo keys; with `sealingUnderPrevious`, a ring whose current key is the previous one.
    static func photoKeys(sealingUnderPrevious: Bool = false) throws -> KeyRing {
        let values = sealingUnderPrevious ? ["k": previousPhotoKey, "p": ""] : ["k": photoKey, "p": previousPhotoKey]
        return try #require(
            try KeyRing.read(config: ConfigReaderFactory.make(values), currentKey: "k", previousKeys: "p", variable: "K", previousVariable: "P"))
    }

    /// A photo vault like the meals service's (one thumbnailer for every test), sealing under `keys`.
    static func photoVault(keys: KeyRing) -> PhotoVault {
        PhotoVault(cipher: SealingCipher(keys: keys), thumbnailer: thumbnailer)
    }

    private static let thumbnailer = PhotoThumbnailer(settings: PhotoThumbnailerSettings(), logger: TestEnvironment.logger)

    /// The service configuration of `schema` (emptied first).
    static func config(schema: String) async throws -> [String: String] {
        let settings = try TestEnvironment.postgresSettings(schema: schema)
        try await withPostgres(settings) { try await emptySchema($0) }
        return TestEnvironment.serviceConfig(settings, schema: schema)
    }

    /// The configuration of service `name` on its emptied `itest_<name>` schema, consuming with a consumer group of
    /// its own (`itest-<name>-…`) that reads every event published from now on (`ConsumerGroupStart`).
    static func config(service name: String) async throws -> [String: String] {
        var values = try await config(schema: "itest_\(name)")
        let group = "itest-\(name)-\(UUID().uuidString.prefix(8))"
        try ConsumerGroupStart.atEnd(group: group)
        values["\(name).consumer.group"] = group
        if name == "sharing" {
            // Every harness builds sharing from this configuration; its photo copies are sealed like meals' photos.
            values["sharing.photo.encryption.key"] = photoKey
            values["sharing.photo.encryption.previous.keys"] = previousPhotoKey
        }
        if name == "trends" { values["trends.photo.url.key"] = photoURLKey }
        return values
    }

    /// The auth service on an emptied itest_auth with a fresh signing key and mail folder.
    static func auth(
        clock: TestClock, mailDirectory: URL = FileManager.default.temporaryDirectory.appendingPathComponent("mail-\(UUID())"),
        extra: [String: String] = [:]
    ) async throws -> BackendApplication {
        var values = try await config(schema: "itest_auth")
        let seed = (0..<32).map { _ in UInt8.random(in: .min ... .max) }
        values["auth.signing.key"] = "itest:\(Base64URL.encode(seed))"
        values["auth.mail.directory"] = mailDirectory.path
        values.merge(extra) { _, new in new }
        return try await AuthService.buildApplication(config: ConfigReaderFactory.make(values), logger: TestEnvironment.logger, now: { clock.now() })
    }

    /// The meals service on an emptied itest_meals with the real USDA table; with `visionPort`, it asks the scripted
    /// vision provider listening there, once per photo.
    /// `profileArrivals` sees the writes that wait for a new user's profile (when `extra` sets
    /// `meals.profile.wait.seconds`).
    static func meals(
        clock: TestClock, visionPort: Int? = nil, extra: [String: String] = [:], profileArrivals: ProfileArrivals? = nil
    ) async throws -> BackendApplication {
        var values = try await config(service: "meals")
        values["meals.food.data.file"] = TestEnvironment.foodDataFile.path
        values["meals.photo.url.key"] = photoURLKey
        values["meals.vision.key.encryption.key"] = "itest:\(Base64URL.encode((0..<32).map { _ in UInt8.random(in: .min ... .max) }))"
        values["meals.photo.encryption.key"] = photoKey
        values["meals.photo.encryption.previous.keys"] = previousPhotoKey
        // The scripted providers of the tests listen on loopback, which users' own base URLs may otherwise not name.
        values["meals.vision.user.allowed.hosts"] = "127.0.0.1"
        // Most harnesses log meals of users auth never registered: no profile comes, so no write waits for one.
        values["meals.profile.wait.seconds"] = "0"
        if let visionPort {
            values["meals.vision.base.url"] = "http://127.0.0.1:\(visionPort)/v1"
            values["meals.vision.max.attempts"] = "1"
        }
        values.merge(extra) { _, new in new }
        return try await MealsService.buildApplication(
            config: ConfigReaderFactory.make(values), logger: TestEnvironment.logger, now: { clock.now() }, profileArrivals: profileArrivals)
    }

    /// Serves every application live on loopback, waits until each is ready, and runs `body` with their clients by name.
    static func live(
        _ applications: [(String, BackendApplication)], clients: [String: any TestClientProtocol] = [:],
        _ body: @Sendable ([String: any TestClientProtocol]) async throws -> Void
    ) async throws {
        guard let (name, application) = applications.first else { return try await body(clients) }
        try await application.application.test(.live) { client in
            let ready = try await TestEnvironment.eventually(timeout: .seconds(60)) {
                try await client.execute(uri: "/health/ready", method: .get).status == .ok
            }
            #expect(ready, "the \(name) service did not become ready")
            var clients = clients
            clients[name] = client
            try await live(Array(applications.dropFirst()), clients: clients, body)
        }
    }
}

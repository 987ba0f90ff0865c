import BackendKit
import Configuration
import Foundation
import ServiceDefaults

/// The meals service's own settings, read once at start.
struct MealsSettings: Sendable {
    /// The USDA JSON-lines file to import at start (`MEALS_FOOD_DATA_FILE`); nil: use what the table holds.
    var foodDataFile: URL?
    /// Largest photo accepted by `POST /api/analyze` (`MEALS_UPLOAD_MAX_BYTES`, default 10 MiB).
    var maxImageBytes: Int
    /// The vision provider; nil when `MEALS_VISION_BASE_URL` is unset (photos then answer 503 vision_not_configured).
    var vision: VisionSettings?
    /// The keys that sign photo URLs (`MEALS_PHOTO_URL_KEY`, `kid:base64url(32 random bytes)`, and
    /// `MEALS_PHOTO_URL_PREVIOUS_KEYS`, still accepted); nil when unset: a random key per process (URLs then stop
    /// working at a restart and are not accepted by another replica, so set it wherever more than one runs).
    var photoURLKeys: KeyRing?
    /// The keys that seal users' own vision keys (`MEALS_VISION_KEY_ENCRYPTION_KEY`, `kid:base64url(32 random bytes)`,
    /// and `MEALS_VISION_KEY_ENCRYPTION_PREVIOUS_KEYS`, still opened); nil when unset: users cannot store keys.
    var visionKeyEncryptionKeys: KeyRing?
    /// The keys that seal meal photos and thumbnails at rest (`MEALS_PHOTO_ENCRYPTION_KEY`, `kid:base64url(32 random
    /// bytes)`, and `MEALS_PHOTO_ENCRYPTION_PREVIOUS_KEYS`, still opened; the photo upkeep job seals again what they
    /// sealed); nil when unset: photos cannot be stored or shown (503 `photos_not_configured`).
    var photoEncryptionKeys: KeyRing?
    /// How the photo thumbnails are made (`MEALS_THUMBNAIL_*`).
    var thumbnails: PhotoThumbnailerSettings
    /// How often the photo upkeep job (sealing, re-sealing, thumbnails of older photos) looks for work
    /// (`MEALS_PHOTO_UPKEEP_INTERVAL_SECONDS`, default 60).
    var photoUpkeepInterval: Duration
    /// Hosts a user's vision base URL may name although they are private or use plain http
    /// (`MEALS_VISION_USER_ALLOWED_HOSTS`, comma-separated, none by default): an operator's own provider.
    var visionUserAllowedHosts: Set<String>
    /// How long a photo URL works (`MEALS_PHOTO_URL_LIFETIME_SECONDS`, 60 to 86400, default 900).
    var photoURLLifetime: TimeInterval
    /// Dollars per million tokens of each vision model, for the estimated cost of users' analyses
    /// (`MEALS_VISION_PRICES`, `model=input:output,...`, default `VisionPrices.defaultTable`).
    var visionPrices: VisionPrices
    /// How long a meal-writing request of a user the service has no profile of yet (registered a moment ago, the
    /// registration's `user.profile_updated` still on its way) waits for it before going on with the UTC standard
    /// (`MEALS_PROFILE_WAIT_SECONDS`, default 3; 0 goes on at once).
    var profileWait: Duration
    /// How often a waiting request reads the database again, for a profile another replica's consumer stored
    /// (`MEALS_PROFILE_WAIT_RECHECK_SECONDS`, default 0.25); this replica's own consumer wakes it at once.
    var profileWaitRecheck: Duration
    /// The most requests that wait for a profile at once (`MEALS_PROFILE_WAIT_MAX_WAITERS`, default 256) and of one
    /// user (`MEALS_PROFILE_WAIT_MAX_PER_USER`, default 4); beyond them a request goes on at once with the standard.
    var profileWaitMaxWaiters: Int
    /// See `profileWaitMaxWaiters`.
    var profileWaitMaxPerUser: Int

    init(config: ConfigReader) throws {
        foodDataFile = config.string(forKey: "meals.food.data.file").map { URL(fileURLWithPath: $0) }
        if let file = foodDataFile, !FileManager.default.fileExists(atPath: file.path) {
            throw ConfigurationError.invalid("MEALS_FOOD_DATA_FILE", reason: "\(file.path) does not exist; run deploy/setup.sh to create it")
        }
        maxImageBytes = config.int(forKey: "meals.upload.max.bytes", default: 10 * 1024 * 1024)
        guard maxImageBytes >= 1024 && maxImageBytes <= 50 * 1024 * 1024 else {
            throw ConfigurationError.invalid("MEALS_UPLOAD_MAX_BYTES", reason: "must be between 1 KiB and 50 MiB")
        }
        vision = try VisionSettings.read(config: config)
        photoURLKeys = try KeyRing.read(
            config: config, currentKey: "meals.photo.url.key", previousKeys: "meals.photo.url.previous.keys", variable: "MEALS_PHOTO_URL_KEY",
            previousVariable: "MEALS_PHOTO_URL_PREVIOUS_KEYS")
        visionKeyEncryptionKeys = try KeyRing.read(
            config: config, currentKey: "meals.vision.key.encryption.key", previousKeys: "meals.vision.key.encryption.previous.keys",
            variable: "MEALS_VISION_KEY_ENCRYPTION_KEY", previousVariable: "MEALS_VISION_KEY_ENCRYPTION_PREVIOUS_KEYS")
        photoEncryptionKeys = try KeyRing.read(
            config: config, currentKey: "meals.photo.encryption.key", previousKeys: "meals.photo.encryption.previous.keys",
            variable: "MEALS_PHOTO_ENCRYPTION_KEY", previousVariable: "MEALS_PHOTO_ENCRYPTION_PREVIOUS_KEYS")
        thumbnails = try PhotoThumbnailerSettings(config: config)
        photoUpkeepInterval = .seconds(config.double(forKey: "meals.photo.upkeep.interval.seconds", default: 60))
        guard photoUpkeepInterval > .zero else {
            throw ConfigurationError.invalid("MEALS_PHOTO_UPKEEP_INTERVAL_SECONDS", reason: "must be above 0")
        }
        visionUserAllowedHosts = Set(
            config.string(forKey: "meals.vision.user.allowed.hosts", default: "").split(separator: ",")
                .map { $0.trimmingCharacters(in: .whitespaces).lowercased() }.filter { !$0.isEmpty })
        photoURLLifetime = TimeInterval(config.int(forKey: "meals.photo.url.lifetime.seconds", default: 900))
        guard (60...86_400).contains(photoURLLifetime) else {
            throw ConfigurationError.invalid("MEALS_PHOTO_URL_LIFETIME_SECONDS", reason: "must be between 60 and 86400")
        }
        visionPrices = try VisionPrices(config: config)
        profileWait = .seconds(max(0, config.double(forKey: "meals.profile.wait.seconds", default: 3)))
        profileWaitRecheck = .seconds(max(0.01, config.double(forKey: "meals.profile.wait.recheck.seconds", default: 0.25)))
        profileWaitMaxWaiters = config.int(forKey: "meals.profile.wait.max.waiters", default: 256)
        profileWaitMaxPerUser = config.int(forKey: "meals.profile.wait.max.per.user", default: 4)
        guard profileWaitMaxWaiters >= 1, profileWaitMaxPerUser >= 1 else {
            throw ConfigurationError.invalid("MEALS_PROFILE_WAIT_MAX_WAITERS", reason: "it and MEALS_PROFILE_WAIT_MAX_PER_USER must be at least 1")
        }
    }
}

import BackendKit
import Configuration
import Foundation
import ServiceDefaults

/// The sharing service's own settings, read once at start.
struct SharingSettings: Sendable {
    /// Where people open shared links (`SHARING_PUBLIC_BASE_URL`, default `http://localhost:8080`, the local gateway);
    /// a link's URL is this plus `/shared/{token}`.
    var publicBaseURL: String
    /// How long a share request for a meal the service has not heard of yet waits for the meal's event before asking
    /// the meals service whether the meal exists: 409 `meal_not_ready` when it does, 404 `meal_not_found` when not
    /// (`SHARING_MEAL_WAIT_SECONDS`, default 5; 0 asks at once).
    var mealWait: Duration
    /// How often a waiting share request reads the database again, to find a meal another replica's consumer stored
    /// (`SHARING_MEAL_WAIT_RECHECK_SECONDS`, default 0.25); this replica's own consumer wakes it at once.
    var mealWaitRecheck: Duration
    /// The most share requests that wait at once (`SHARING_MEAL_WAIT_MAX_WAITERS`, default 256); beyond it a request is
    /// answered 503 `busy`.
    var mealWaitMaxWaiters: Int
    /// The most of one user's share requests that wait at once (`SHARING_MEAL_WAIT_MAX_PER_USER`, default 4).
    var mealWaitMaxPerUser: Int
    /// The meals service, asked once for a meal's photo when it is shared with it, and whether a meal exists when a
    /// share request waited for its event in vain (`SHARING_MEALS_URL`, default `http://127.0.0.1:8082`).
    var mealsURL: String
    /// Time limit of each of those calls (`SHARING_PHOTO_TIMEOUT_SECONDS`, default 5).
    var photoTimeout: Duration
    /// Largest photo copied (`SHARING_PHOTO_MAX_BYTES`, default 10 MiB, the meals service's upload limit).
    var maxPhotoBytes: Int
    /// How often the views counted in memory are written to `links` (`SHARING_VIEWS_WRITE_INTERVAL_SECONDS`,
    /// default 0.25): the most views a killed process loses, and how late other replicas see a count.
    var viewWriteInterval: Duration
    /// The keys that seal the copied photos at rest (`SHARING_PHOTO_ENCRYPTION_KEY`, `kid:base64url(32 random bytes)`,
    /// and `SHARING_PHOTO_ENCRYPTION_PREVIOUS_KEYS`, still opened); nil when unset: links cannot include photos
    /// (503 `photos_not_configured`). A job seals again, every `SHARING_PHOTO_UPKEEP_INTERVAL_SECONDS` (default 60),
    /// what a previous key or no key sealed.
    var photoEncryptionKeys: KeyRing?
    var photoUpkeepInterval: Duration

    init(config: ConfigReader) throws {
        let base = config.string(forKey: "sharing.public.base.url", default: "http://localhost:8080")
        guard let url = URL(string: base), url.scheme == "https" || url.scheme == "http", url.host != nil, url.query == nil else {
            throw ConfigurationError.invalid("SHARING_PUBLIC_BASE_URL", reason: "must be an absolute http(s) URL without a query")
        }
        publicBaseURL = base.hasSuffix("/") ? String(base.dropLast()) : base
        mealWait = .seconds(max(0, config.double(forKey: "sharing.meal.wait.seconds", default: 5)))
        mealWaitRecheck = .seconds(max(0.01, config.double(forKey: "sharing.meal.wait.recheck.seconds", default: 0.25)))
        mealWaitMaxWaiters = config.int(forKey: "sharing.meal.wait.max.waiters", default: 256)
        mealWaitMaxPerUser = config.int(forKey: "sharing.meal.wait.max.per.user", default: 4)
        guard mealWaitMaxWaiters >= 1, mealWaitMaxPerUser >= 1 else {
            throw ConfigurationError.invalid("SHARING_MEAL_WAIT_MAX_WAITERS", reason: "it and SHARING_MEAL_WAIT_MAX_PER_USER must be at least 1")
        }
        mealsURL = config.string(forKey: "sharing.meals.url", default: "http://127.0.0.1:8082")
        guard URL(string: mealsURL)?.host != nil else {
            throw ConfigurationError.invalid("SHARING_MEALS_URL", reason: "must be an absolute http URL")
        }
        photoTimeout = .seconds(config.double(forKey: "sharing.photo.timeout.seconds", default: 5))
        maxPhotoBytes = config.int(forKey: "sharing.photo.max.bytes", default: 10 * 1024 * 1024)
        viewWriteInterval = .seconds(config.double(forKey: "sharing.views.write.interval.seconds", default: 0.25))
        photoEncryptionKeys = try KeyRing.read(
            config: config, currentKey: "sharing.photo.encryption.key", previousKeys: "sharing.photo.encryption.previous.keys",
            variable: "SHARING_PHOTO_ENCRYPTION_KEY", previousVariable: "SHARING_PHOTO_ENCRYPTION_PREVIOUS_KEYS")
        photoUpkeepInterval = .seconds(config.double(forKey: "sharing.photo.upkeep.interval.seconds", default: 60))
        guard photoUpkeepInterval > .zero else {
            throw ConfigurationError.invalid("SHARING_PHOTO_UPKEEP_INTERVAL_SECONDS", reason: "must be above 0")
        }
    }
}

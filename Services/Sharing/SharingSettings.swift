import Configuration
import Foundation
import ServiceDefaults

/// The sharing service's own settings, read once at start.
struct SharingSettings: Sendable {
    /// Where people open shared links (`SHARING_PUBLIC_BASE_URL`, default `http://localhost:8080`, the local gateway);
    /// a link's URL is this plus `/shared/{token}`.
    var publicBaseURL: String
    /// How long a share request waits for the meal's first event before answering 409 `meal_not_ready`
    /// (`SHARING_SNAPSHOT_WAIT_SECONDS`, default 2).
    var snapshotWait: Duration
    /// The meals service, asked once for a meal's photo when it is shared with it (`SHARING_MEALS_URL`,
    /// default `http://127.0.0.1:8082`).
    var mealsURL: String
    /// Time limit of that call (`SHARING_PHOTO_TIMEOUT_SECONDS`, default 5).
    var photoTimeout: Duration
    /// Largest photo copied (`SHARING_PHOTO_MAX_BYTES`, default 10 MiB, the meals service's upload limit).
    var maxPhotoBytes: Int
    /// How often the views counted in memory are written to `links` (`SHARING_VIEWS_WRITE_INTERVAL_SECONDS`,
    /// default 0.25): the most views a killed process loses, and how late other replicas see a count.
    var viewWriteInterval: Duration

    init(config: ConfigReader) throws {
        let base = config.string(forKey: "sharing.public.base.url", default: "http://localhost:8080")
        guard let url = URL(string: base), url.scheme == "https" || url.scheme == "http", url.host != nil, url.query == nil else {
            throw ConfigurationError.invalid("SHARING_PUBLIC_BASE_URL", reason: "must be an absolute http(s) URL without a query")
        }
        publicBaseURL = base.hasSuffix("/") ? String(base.dropLast()) : base
        snapshotWait = .seconds(config.double(forKey: "sharing.snapshot.wait.seconds", default: 2))
        mealsURL = config.string(forKey: "sharing.meals.url", default: "http://127.0.0.1:8082")
        guard URL(string: mealsURL)?.host != nil else {
            throw ConfigurationError.invalid("SHARING_MEALS_URL", reason: "must be an absolute http URL")
        }
        photoTimeout = .seconds(config.double(forKey: "sharing.photo.timeout.seconds", default: 5))
        maxPhotoBytes = config.int(forKey: "sharing.photo.max.bytes", default: 10 * 1024 * 1024)
        viewWriteInterval = .seconds(config.double(forKey: "sharing.views.write.interval.seconds", default: 0.25))
    }
}

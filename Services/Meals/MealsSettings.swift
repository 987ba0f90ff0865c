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
    }
}

import Configuration
import Foundation
import ServiceDefaults

/// The foods service's own settings (`FOODS_*`); Open Food Facts' are `OpenFoodFactsSettings`.
struct FoodsSettings: Sendable {
    /// The USDA table as JSON lines, the file meals imports too (`FOODS_FOOD_DATA_FILE`; none: search finds products only).
    var foodDataFile: URL?
    /// Distinct users whose reports hold a product back from others until an operator looks (`FOODS_REPORTS_TO_HOLD`,
    /// default 3, 1...1000).
    var reportsToHold: Int
    var openFoodFacts: OpenFoodFactsSettings

    init(config: ConfigReader) throws {
        foodDataFile = config.string(forKey: "foods.food.data.file").map { URL(fileURLWithPath: $0) }
        if let file = foodDataFile, !FileManager.default.fileExists(atPath: file.path) {
            throw ConfigurationError.invalid(
                "FOODS_FOOD_DATA_FILE", reason: "no file at \(file.path) (deploy/setup.sh writes .local/foods/usda_sr24.jsonl)")
        }
        reportsToHold = try config.integer("foods.reports.to.hold", default: 3, in: 1...1000)
        openFoodFacts = try OpenFoodFactsSettings(config: config)
    }
}

import Configuration
import Foundation
import ServiceDefaults

/// The foods service's own settings (`FOODS_*`); Open Food Facts' are `OpenFoodFactsSettings`, the trust in users'
/// products and reports `CommunityRules`.
struct FoodsSettings: Sendable {
    /// The USDA table as JSON lines, the file meals imports too (`FOODS_FOOD_DATA_FILE`; none: search finds products only).
    var foodDataFile: URL?
    /// Daily limits, whose reports count, and how many hold a product.
    var community: CommunityRules
    /// How long a barcode look-up's answer is kept (`FOODS_LOOKUP_CACHE_MILLISECONDS`, default 2000, 0...60000; 0 keeps
    /// none): another replica's change of a product is answered here within it.
    var lookupCacheLifetime: Duration
    /// How many look-up answers are kept at most (`FOODS_LOOKUP_CACHE_ENTRIES`, default 10000, 1...1000000).
    var lookupCacheEntries: Int
    var openFoodFacts: OpenFoodFactsSettings

    init(config: ConfigReader) throws {
        foodDataFile = config.string(forKey: "foods.food.data.file").map { URL(fileURLWithPath: $0) }
        if let file = foodDataFile, !FileManager.default.fileExists(atPath: file.path) {
            throw ConfigurationError.invalid(
                "FOODS_FOOD_DATA_FILE", reason: "no file at \(file.path) (deploy/setup.sh writes .local/foods/usda_sr24.jsonl)")
        }
        community = try CommunityRules(config: config)
        lookupCacheLifetime = .milliseconds(try config.integer("foods.lookup.cache.milliseconds", default: 2000, in: 0...60000))
        lookupCacheEntries = try config.integer("foods.lookup.cache.entries", default: 10000, in: 1...1_000_000)
        openFoodFacts = try OpenFoodFactsSettings(config: config)
    }
}

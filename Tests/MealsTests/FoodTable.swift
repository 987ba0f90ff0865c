import FoodData
import Foundation
import Testing

@testable import MealsService

/// The real USDA table, as the setup step converts it, loaded once for every unit test that needs real foods.
enum FoodTable {
    /// The file the setup step writes (`NUTRITION_FOOD_DATA_FILE`, else `.local/foods/usda_sr24.jsonl` in the repository).
    static let file: URL = {
        if let path = ProcessInfo.processInfo.environment["NUTRITION_FOOD_DATA_FILE"] { return URL(fileURLWithPath: path) }
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        return repository.appendingPathComponent(".local/foods/usda_sr24.jsonl")
    }()

    /// The catalog built from the file; a missing file fails loudly with how to make it.
    static let catalog: FoodCatalog = {
        guard let sources = try? FoodSource.readAll(from: file) else {
            fatalError("The USDA food file \(file.path) is missing: run `bash deploy/setup.sh` (the test command does).")
        }
        return FoodCatalog(foods: sources.map(FoodRecord.init(source:)))
    }()

    /// A table food by id, failing the test when it is absent.
    static func food(_ id: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> FoodRecord {
        try #require(catalog.food(id: id), "food \(id) is not in the table", sourceLocation: sourceLocation)
    }
}

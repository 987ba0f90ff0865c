import Crypto
import FoodData
import Foundation
import Logging
import PostgresNIO
import PostgresSupport
import WireJSON

/// Imports the USDA data file into `meals.foods`: every food inserted or updated in one transaction, in
/// batches, and the file's checksum recorded, so importing the same file again does nothing. Logs to the caller's `logger`.
/// A cancelled import stops between lines and between batches and rolls back (a stop at SIGTERM during the first
/// import, which takes seconds, is not held up by it), and the next start imports the file again.
struct FoodImporter: Sendable {
    let client: PostgresPool

    /// Imports `file` unless a file with the same contents was imported before; returns the number of foods written.
    @discardableResult
    func importIfNeeded(from file: URL, logger: Logger) async throws -> Int {
        let data = try Data(contentsOf: file)
        let checksum = SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined()
        let alreadyImported =
            try await client.query(
                "SELECT 1 FROM food_imports WHERE checksum = \(checksum)", logger: logger
            ).collect().isEmpty == false
        if alreadyImported { return 0 }
        let foods = try FoodSource.decodeAll(data)
        let started = ContinuousClock.now
        try await client.transaction(logger: logger) { connection in
            for batch in stride(from: 0, to: foods.count, by: Self.batchSize) {
                try Task.checkCancellation()
                try await insert(Array(foods[batch..<min(batch + Self.batchSize, foods.count)]), on: connection, logger: logger)
            }
            try await connection.query(
                """
                INSERT INTO food_imports (checksum, food_count, imported_at) VALUES (\(checksum), \(foods.count), now())
                ON CONFLICT (checksum) DO NOTHING
                """, logger: logger)
        }
        logger.info(
            "food table imported",
            metadata: ["foods": "\(foods.count)", "file": .string(file.lastPathComponent), "duration": "\(ContinuousClock.now - started)"])
        return foods.count
    }

    private static let batchSize = 1000

    /// One multi-row upsert through `unnest` of column arrays (one round trip per batch).
    private func insert(_ sources: [FoodSource], on connection: PostgresConnection, logger: Logger) async throws {
        let encoder = WireJSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let records = sources.map(FoodRecord.init(source:))
        func column(_ value: (NutrientProfile) -> Double) -> [Double] { records.map { value($0.per100g) } }
        let ids = records.map(\.id)
        let names = records.map(\.name)
        let groups = records.map(\.group.rawValue)
        let nutrients = try sources.map { String(decoding: try encoder.encode($0.nutrients), as: UTF8.self) }
        let measures = try records.map { String(decoding: try encoder.encode($0.measures), as: UTF8.self) }
        let traits = try records.map { String(decoding: try encoder.encode($0.traits), as: UTF8.self) }
        let processing = records.map { $0.traits.processing.rawValue }
        let (calories, protein, carbs, fat) = (column(\.calories), column(\.protein), column(\.carbs), column(\.fat))
        let (fiber, sugars, saturated, sodium) = (column(\.fiber), column(\.sugars), column(\.saturatedFat), column(\.sodium))
        try await connection.query(
            """
            INSERT INTO foods (id, name, food_group, calories, protein, carbs, fat, fiber, sugars, saturated_fat, sodium,
                               nutrients, measures, traits, processing_level)
            SELECT id, name, food_group, calories, protein, carbs, fat, fiber, sugars, saturated_fat, sodium,
                   nutrients::jsonb, measures::jsonb, traits::jsonb, processing_level::smallint
            FROM unnest(\(ids)::text[], \(names)::text[], \(groups)::text[], \(calories)::float8[], \(protein)::float8[],
                        \(carbs)::float8[], \(fat)::float8[], \(fiber)::float8[], \(sugars)::float8[], \(saturated)::float8[],
                        \(sodium)::float8[], \(nutrients)::text[], \(measures)::text[], \(traits)::text[], \(processing)::int8[])
                 AS source(id, name, food_group, calories, protein, carbs, fat, fiber, sugars, saturated_fat, sodium,
                           nutrients, measures, traits, processing_level)
            ON CONFLICT (id) DO UPDATE SET
                name = EXCLUDED.name, food_group = EXCLUDED.food_group, calories = EXCLUDED.calories,
                protein = EXCLUDED.protein, carbs = EXCLUDED.carbs, fat = EXCLUDED.fat, fiber = EXCLUDED.fiber,
                sugars = EXCLUDED.sugars, saturated_fat = EXCLUDED.saturated_fat, sodium = EXCLUDED.sodium,
                nutrients = EXCLUDED.nutrients, measures = EXCLUDED.measures, traits = EXCLUDED.traits,
                processing_level = EXCLUDED.processing_level
            """, logger: logger)
    }
}

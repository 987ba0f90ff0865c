import Foundation

/// One food as written by `deploy/lib/usda_sr24_to_jsonl.py`: every nutrient per 100 g by its table name.
struct FoodSource: Codable, Sendable {
    var id: String
    var name: String
    var measures: [HouseholdMeasure]
    var nutrients: [String: Double]

    /// Reads a JSON-lines data file; a line that is not a food fails the whole read (the file is made by our setup).
    static func readAll(from url: URL) throws -> [FoodSource] {
        try decodeAll(Data(contentsOf: url))
    }

    /// The foods of a JSON-lines file already in memory. Throws `CancellationError` between lines once the task is
    /// cancelled, so that a stop during the first import does not wait for the whole file to be decoded.
    static func decodeAll(_ data: Data) throws -> [FoodSource] {
        let decoder = JSONDecoder()
        return try data.split(separator: UInt8(ascii: "\n")).map { line in
            try Task.checkCancellation()
            return try decoder.decode(FoodSource.self, from: Data(line))
        }
    }
}

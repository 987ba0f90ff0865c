import Foundation

/// One food as written by `deploy/lib/usda_sr24_to_jsonl.py`: every nutrient per 100 g by its table name.
public struct FoodSource: Codable, Sendable {
    public var id: String
    public var name: String
    public var measures: [HouseholdMeasure]
    public var nutrients: [String: Double]

    public init(id: String, name: String, measures: [HouseholdMeasure], nutrients: [String: Double]) {
        self.id = id
        self.name = name
        self.measures = measures
        self.nutrients = nutrients
    }

    /// Reads a JSON-lines data file; a line that is not a food fails the whole read (the file is made by our setup).
    public static func readAll(from url: URL) throws -> [FoodSource] {
        try decodeAll(Data(contentsOf: url))
    }

    /// The foods of a JSON-lines file already in memory. Throws `CancellationError` between lines once the task is
    /// cancelled, so that a stop during the first import does not wait for the whole file to be decoded.
    public static func decodeAll(_ data: Data) throws -> [FoodSource] {
        let decoder = JSONDecoder()
        return try data.split(separator: UInt8(ascii: "\n")).map { line in
            try Task.checkCancellation()
            return try decoder.decode(FoodSource.self, from: Data(line))
        }
    }
}

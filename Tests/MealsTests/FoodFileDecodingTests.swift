import FoodData
import Foundation
import Testing

@testable import MealsService

/// The first import of the food file takes seconds; a stop during it must not wait for the whole file.
@Suite("Decoding the food file")
struct FoodFileDecodingTests {
    @Test("the whole file decodes, and a cancelled task stops with CancellationError instead of decoding it")
    func decodingStopsAtCancellation() async throws {
        let data = try Data(contentsOf: FoodTable.file)
        let whole = try FoodSource.decodeAll(data)
        #expect(whole.count == FoodTable.catalog.foods.count)

        let decoding = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try FoodSource.decodeAll(data)
        }
        await #expect(throws: CancellationError.self) { try await decoding.value }
    }
}

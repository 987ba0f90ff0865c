import Foundation
import Testing

@testable import ServiceDefaults

@Suite("Random request ids")
struct RandomRequestIdTests {
    @Test("ids are lower-case version 4 UUIDs that Foundation reads back, and they differ")
    func uuidShape() throws {
        var seen: Set<String> = []
        for _ in 0..<1_000 {
            let id = RandomRequestId.make()
            #expect(id.count == 36)
            #expect(id == id.lowercased())
            let uuid = try #require(UUID(uuidString: id))
            #expect(uuid.uuidString.lowercased() == id)
            let characters = Array(id)
            #expect(characters[14] == "4")
            #expect("89ab".contains(characters[19]))
            seen.insert(id)
        }
        #expect(seen.count == 1_000)
    }
}

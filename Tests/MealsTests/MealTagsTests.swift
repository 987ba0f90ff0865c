import Testing

@testable import MealsService

/// Tags as NutritionAI's meal tags are stored: trimmed, lower case, no repeats, in order, within the bounds.
@Suite("Meal tags")
struct MealTagsTests {
    @Test("tags are trimmed, lowered and kept once each, in the order given")
    func normalised() throws {
        let tags = try MealTags.normalised([" Work Lunch", "work lunch", "High-Protein", "ÉTÉ "]).get()
        #expect(tags == ["work lunch", "high-protein", "été"])
        #expect(try MealTags.normalised([]).get() == [])
    }

    @Test("an empty or over-long tag, or more than 10, is refused with the reason")
    func bounds() throws {
        #expect(throws: MealTags.Problem.self) { try MealTags.normalised(["  "]).get() }
        #expect(throws: MealTags.Problem.self) { try MealTags.normalised([String(repeating: "a", count: 33)]).get() }
        #expect(throws: (any Error).self) { try MealTags.normalised((1...11).map { "tag \($0)" }).get() }
        let withRepeat = try MealTags.normalised((1...10).map { "tag \($0)" } + ["TAG 1"]).get()
        #expect(withRepeat.count == 10, "repeats do not count")
        #expect(try MealTags.normalised([String(repeating: "a", count: 32)]).get().count == 1)
    }

    @Test("a filter is one tag normalised the same way")
    func filter() {
        #expect(MealTags.filter(" Work Lunch ") == "work lunch")
        #expect(MealTags.filter("") == nil && MealTags.filter(String(repeating: "b", count: 40)) == nil)
    }
}

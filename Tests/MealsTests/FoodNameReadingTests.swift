import Testing

@testable import FoodData
@testable import MealsService

/// The catalog's fast readers of ASCII names (`FoodNameTokenizer.asciiWords`, `FoodSearchIndex.isBrandWord`) give what
/// the general Unicode readers give, for every name in the USDA table and for queries people type: the catalog loads
/// in about a second in a debug build without changing what a search finds.
@Suite("Reading food names fast")
struct FoodNameReadingTests {
    @Test("every table name and typed query splits into the same words as the Unicode reader's")
    func asciiWordsMatchUnicodeWords() throws {
        let texts =
            FoodTable.catalog.foods.map(\.name) + [
                "2 Eggs, scrambled w/ toast & OJ", "McDonald's BIG MAC", "  chicken--breast  ", "Crème brûlée", "",
                "tomatoes, cherries & peaches", "100% whole-wheat BREAD (sliced)",
            ]
        var asciiCount = 0
        for text in texts {
            if let fast = FoodNameTokenizer.asciiWords(text) {
                asciiCount += 1
                #expect(fast == FoodNameTokenizer.unicodeWords(text), "\(text)")
            }
            #expect(FoodNameTokenizer.words(text) == FoodNameTokenizer.unicodeWords(text), "\(text)")
        }
        #expect(FoodNameTokenizer.asciiWords("Crème brûlée") == nil)
        #expect(asciiCount > 8700)
    }

    @Test("every word of every table name is a brand word exactly when the Unicode reader says so")
    func brandWordsMatch() {
        var brands = 0
        for name in FoodTable.catalog.foods.map(\.name) + ["NESTLÉ CRUNCH", "Café", "ÉCLAIR", "KELLOGG'S"] {
            for word in name.split(separator: " ") {
                let fast = FoodSearchIndex.isBrandWord(word)
                #expect(fast == FoodSearchIndex.isBrandWordUnicode(word), "\(word) in \(name)")
                if fast { brands += 1 }
            }
        }
        #expect(brands > 100)
    }
}

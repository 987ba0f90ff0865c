import Testing

@testable import SharingService

@Suite("Page text")
struct PageTextTests {
    @Test("control characters and bidirectional overrides go; line breaks become spaces; other scripts stay")
    func clean() {
        #expect(PageText.clean("Soup\u{7}\u{0}\u{1B}[31m") == "Soup[31m")
        #expect(PageText.clean("\u{202E}gnp.exe") == "gnp.exe")
        #expect(PageText.clean("two\nlines\tand tab") == "two lines and tab")
        #expect(PageText.clean("味噌汁 🍲 شوربة") == "味噌汁 🍲 شوربة")
    }

    @Test("titles wrap between words into at most two lines, with an ellipsis when cut")
    func lines() {
        #expect(PageText.lines("Eggs and toast", width: 24, maximumLines: 2) == ["Eggs and toast"])
        #expect(PageText.lines("Grilled salmon with quinoa and roasted vegetables", width: 24, maximumLines: 2)
            == ["Grilled salmon with", "quinoa and roasted…"])
        #expect(PageText.lines(String(repeating: "x", count: 60), width: 24, maximumLines: 2)
            == [String(repeating: "x", count: 24), String(repeating: "x", count: 23) + "…"])
        #expect(PageText.lines("", width: 24, maximumLines: 2) == [])
        for line in PageText.lines("a very long meal name that goes on and on and on for ever", width: 24, maximumLines: 2) {
            #expect(line.count <= 24)
        }
    }

    @Test("numbers keep at most the asked decimals, without trailing zeros")
    func numbers() {
        #expect(PageText.number(419.6, decimals: 0) == "420")
        #expect(PageText.number(12.50, decimals: 1) == "12.5")
        #expect(PageText.number(3.0, decimals: 2) == "3")
        #expect(PageText.number(.nan, decimals: 1) == "0")
    }

    @Test("share text follows the seed's sentence")
    func shareText() {
        #expect(ShareText.make(title: "Eggs", calories: 301.4, url: "https://x/shared/t") == "I had Eggs with 301 calories! https://x/shared/t")
    }
}

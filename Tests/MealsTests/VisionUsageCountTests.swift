import Configuration
import Foundation
import ServiceDefaults
import TestSupport
import Testing

@testable import MealsService

@Suite("What photo analyses cost: the provider's token usage and the price table")
struct VisionUsageCountTests {
    let photo = PhotoUpload(bytes: VisionClientTests.photoBytes, format: .png)

    @Test("every answer's usage is counted, also of an answer that named no food; an answer without usage counts as a call")
    func tallyOfAnswers() async throws {
        try await FakeVisionProvider.run([.items([MealPhotoItems.rice], usage: (1500, 200))]) { fake, url in
            let client = VisionClientTests.client(url)
            let tally = TokenTally()
            _ = try await client.recognise(photo, hint: nil, caller: VisionClientTests.caller, tally: tally)
            #expect(tally.total.answers == 1 && tally.total.usage == TokenUsage(promptTokens: 1500, completionTokens: 200))

            fake.script([.items([], usage: (900, 10))])
            let error = await VisionClientTests.visionError {
                try await client.recognise(photo, hint: nil, caller: VisionClientTests.caller, tally: tally)
            }
            #expect(error == .noFoodRecognised("the model saw no food or drink"))
            #expect(tally.total.answers == 2 && tally.total.usage == TokenUsage(promptTokens: 2400, completionTokens: 210))

            fake.script([.items([MealPhotoItems.rice], usage: nil)])
            _ = try await client.recognise(photo, hint: nil, caller: VisionClientTests.caller, tally: tally)
            #expect(tally.total.answers == 3 && tally.total.usage.totalTokens == 2610)

            fake.script([.status(.badRequest)])
            _ = await VisionClientTests.visionError { try await client.recognise(photo, hint: nil, caller: VisionClientTests.caller, tally: tally) }
            #expect(tally.total.answers == 3, "a refused request is not an answer the provider bills")
        }
    }

    @Test("the default price table prices gpt-4o-mini and its dated variants; MEALS_VISION_PRICES replaces it; unreadable entries stop the start")
    func prices() throws {
        let defaults = try VisionPrices(config: ConfigReaderFactory.make([:]))
        let usage = TokenUsage(promptTokens: 1_000_000, completionTokens: 1_000_000)
        #expect(defaults.cost(of: usage, model: "gpt-4o-mini") == 0.75)
        #expect(defaults.cost(of: usage, model: "gpt-4o-mini-2024-07-18") == 0.75)
        #expect(defaults.cost(of: usage, model: "GPT-4o") == 12.5)
        #expect(defaults.cost(of: usage, model: "llava:13b") == nil)

        let own = try VisionPrices(config: ConfigReaderFactory.make(["meals.vision.prices": "llava=0:0, my-model = 1.5:3 ,*=2:4"]))
        #expect(own.cost(of: TokenUsage(promptTokens: 2000, completionTokens: 1000), model: "my-model") == 0.006)
        #expect(own.cost(of: usage, model: "llava") == 0)
        #expect(own.cost(of: usage, model: "gpt-4o-mini") == 6, "* prices every model not named")

        for bad in ["gpt-4o-mini", "gpt-4o-mini=0.15", "=1:2", "x=a:b", "x=-1:2"] {
            #expect(throws: ConfigurationError.self, "\(bad)") {
                try VisionPrices(config: ConfigReaderFactory.make(["meals.vision.prices": bad]))
            }
        }
    }

    @Test("months are YYYY-MM; anything else is refused")
    func months() {
        #expect(UsageMonth("2026-11")?.firstDay == "2026-11-01")
        for bad in ["2026-13", "2026-00", "2026-1", "26-11", "2026/11", "2026-11-01", "", "１２３４-11"] { #expect(UsageMonth(bad) == nil, "\(bad)") }
        #expect(UsageMonth(containing: Date(timeIntervalSince1970: 1_798_761_599)).text == "2026-12", "the last second of 2026 in UTC")
    }

    @Test("the warning starts at 80% of the budget and says when it is spent")
    func warning() {
        let month = UsageMonth("2026-11")!
        #expect(VisionUsageWarning(cost: 3.99, budget: 5, month: month) == nil)
        #expect(VisionUsageWarning(cost: 4, budget: 5, month: month)?.code == "vision_budget_nearly_spent")
        let over = VisionUsageWarning(cost: 5.5, budget: 5, month: month)
        #expect(over?.code == "vision_budget_exceeded" && over?.percentOfBudget == 110 && over?.message.contains("$5.50 of your $5.00") == true)
    }
}

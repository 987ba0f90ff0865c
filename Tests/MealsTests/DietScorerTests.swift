import Foundation
import Testing

@testable import MealsService

@Suite("Diet scores of real meals")
struct DietScorerTests {
    private func score(_ items: [ScorableItem], _ diet: DietPreference) -> DietScore {
        DietScorer.score(items, profile: ScoringProfile(diet: diet))
    }

    @Test("keto: eggs, bacon and butter are green; rice with orange juice is red")
    func keto() throws {
        let breakfast = score(try TestMeals.ketoBreakfast(), .keto)
        #expect(breakfast.band == .green)
        #expect(breakfast.explanation.contains("Fat gives 73%"), "\(breakfast.explanation)")
        let rice = score(try TestMeals.riceAndJuice(), .keto)
        #expect(rice.band == .red)
        #expect(rice.explanation.contains("Net carbs give 89%"), "\(rice.explanation)")
    }

    @Test("low-carb: salmon with broccoli is green; rice with orange juice is red")
    func lowCarb() throws {
        #expect(score(try TestMeals.salmonAndBroccoli(), .lowCarb).band == .green)
        let rice = score(try TestMeals.riceAndJuice(), .lowCarb)
        #expect(rice.band == .red)
        #expect(rice.explanation.contains("26%"), "\(rice.explanation)")
    }

    @Test("vegan: a steak is red and names the steak; lentils with rice are green")
    func vegan() throws {
        let steak = score(try TestMeals.steak(), .vegan)
        #expect(steak.band == .red)
        #expect(steak.explanation.contains("steak (meat)"), "\(steak.explanation)")
        #expect(score(try TestMeals.lentilsAndRice(), .vegan).score == 100)
    }

    @Test("vegan: one slice of cheese on a big salad lowers the score clearly but not to zero, and says by how much")
    func veganCheeseOnSalad() throws {
        let salad = score(try TestMeals.saladWithCheese(), .vegan)
        #expect(salad.score > 0 && salad.score < 60, "\(salad.score)")
        #expect(salad.explanation == "Not vegan: cheddar cheese (dairy), making up 55% of this meal's energy.")
        let withoutCheese = score(Array(try TestMeals.saladWithCheese().dropLast()), .vegan)
        #expect(withoutCheese.score == 100)
    }

    @Test("vegetarian: a steak is red, while cheese pizza is green")
    func vegetarian() throws {
        #expect(score(try TestMeals.steak(), .vegetarian).band == .red)
        #expect(score(try TestMeals.cheesePizza(), .vegetarian).band == .green)
    }

    @Test("paleo: cheese pizza fails and says why; salmon with broccoli passes")
    func paleo() throws {
        let pizza = score(try TestMeals.cheesePizza(), .paleo)
        #expect(pizza.band == .red)
        #expect(pizza.explanation.contains("cheese pizza (grain, dairy and ultra-processed)"), "\(pizza.explanation)")
        #expect(score(try TestMeals.salmonAndBroccoli(), .paleo).band == .green)
    }

    @Test("mediterranean: salmon, olive oil and vegetables are green; a hot dog is red")
    func mediterranean() throws {
        #expect(score(try TestMeals.salmonWithOliveOilAndVegetables(), .mediterranean).band == .green)
        let hotDog = score(try TestMeals.hotDog(), .mediterranean)
        #expect(hotDog.band == .red)
        #expect(hotDog.explanation.contains("hot dog (ultra-processed)"), "\(hotDog.explanation)")
    }

    @Test("mediterranean: the same plate scores higher with chicken than with steak")
    func mediterraneanRedMeat() throws {
        let chicken = score(try TestMeals.chickenPlate(), .mediterranean)
        let steak = score(try TestMeals.steakPlate(), .mediterranean)
        #expect(chicken.band == .green)
        #expect(steak.score < chicken.score)
        #expect(steak.explanation.contains("steak (red meat)"), "\(steak.explanation)")
    }

    @Test("balanced: a chicken, rice and broccoli plate beats eggs with bacon and butter")
    func balanced() throws {
        let plate = score(try TestMeals.chickenPlate(), .balanced)
        let breakfast = score(try TestMeals.ketoBreakfast(), .balanced)
        #expect(plate.score >= 60)
        #expect(breakfast.band == .red)
        #expect(breakfast.explanation.contains("below the balanced 45-55%"), "\(breakfast.explanation)")
    }

    @Test("custom: the meal closest to the user's split scores best, whichever split it is")
    func custom() throws {
        let highProtein = ScoringProfile(diet: .custom, customMacros: .init(proteinPercent: 40, carbsPercent: 30, fatPercent: 30))
        let highCarb = ScoringProfile(diet: .custom, customMacros: .init(proteinPercent: 10, carbsPercent: 85, fatPercent: 5))
        let plate = try TestMeals.chickenPlate()
        let rice = try TestMeals.riceAndJuice()
        let plateForProtein = DietScorer.score(plate, profile: highProtein)
        #expect(plateForProtein.band == .green)
        #expect(plateForProtein.explanation.contains("your split of protein 40%, carbs 30%, fat 30%"), "\(plateForProtein.explanation)")
        #expect(DietScorer.score(rice, profile: highProtein).band == .red)
        #expect(DietScorer.score(rice, profile: highCarb).band == .green)
        #expect(DietScorer.score(plate, profile: highCarb).band == .red)
    }

    @Test("custom without a split scores like balanced and says no split is set")
    func customWithoutSplit() throws {
        let plate = try TestMeals.chickenPlate()
        let custom = score(plate, .custom)
        #expect(custom.score == score(plate, .balanced).score)
        #expect(custom.diet == .custom)
        #expect(custom.explanation.contains("no custom split is set"), "\(custom.explanation)")
    }

    @Test("an empty or weightless meal gets a neutral yellow 70 for every diet", arguments: DietPreference.allCases)
    func emptyMeal(diet: DietPreference) throws {
        let weightless = try TestMeals.portion("11090", 0, "broccoli")
        for items in [[], [weightless]] {
            let result = score(items, diet)
            #expect(result.score == 70 && result.band == .yellow)
            #expect(result.explanation.contains("nothing in this meal"), "\(result.explanation)")
        }
    }

    @Test("a glass of water has no macro split to judge, but is plainly vegan")
    func water() throws {
        let water = [try TestMeals.portion("14555", 250, "water")]
        let keto = score(water, .keto)
        #expect(keto.score == 70)
        #expect(keto.explanation.contains("no energy"), "\(keto.explanation)")
        #expect(score(water, .vegan).score == 100)
    }

    @Test(
        "bands change at 60 and 80",
        arguments: [(0, DietScoreBand.red), (59, .red), (60, .yellow), (79, .yellow), (80, .green), (100, .green)])
    func bands(score: Int, band: DietScoreBand) {
        #expect(DietScoreBand(score: score) == band)
    }

    @Test("a profile event's diet string picks the diet, and an unknown one scores as balanced")
    func profileFromEvent() {
        let event = { (diet: String) in
            ScoringProfile(.init(userId: UUID(), displayName: "Ana", dietPreference: diet, dailyCalorieGoal: 1800, version: 1))
        }
        #expect(event("low_carb").diet == .lowCarb)
        #expect(event("low_carb").dailyCalorieGoal == 1800)
        #expect(event("carnivore").diet == .balanced)
    }
}

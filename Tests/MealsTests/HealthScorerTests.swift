import EventContracts
import FoodData
import Testing

@testable import MealsService

@Suite("Health scores of real foods")
struct HealthScorerTests {
    private func assess(_ id: String, _ grams: Double, _ name: String, profile: ScoringProfile = .standard) throws -> ItemHealthAssessment {
        HealthScorer.assess(try TestMeals.portion(id, grams, name), profile: profile)
    }

    @Test("a vanishing portion (the smallest double of a gram) is scored and worded without trapping", arguments: [5e-324, 1e-15, 0])
    func vanishingPortion(grams: Double) throws {
        let salty = ScorableItem(
            name: "crumb", grams: grams,
            nutrients: NutrientProfile(calories: 100, protein: 0, carbs: 0, fat: 0, fiber: 0, sugars: 50, saturatedFat: 50, sodium: 5000),
            traits: try TestMeals.portion("01123", 50, "egg").traits)
        let assessment = HealthScorer.assess(salty, profile: .standard)
        #expect((0...100).contains(assessment.health.score))
        #expect(!assessment.reason.isEmpty && !assessment.encouragement.isEmpty)
        #expect(Wording.whole(.infinity) == 1_000_000_000_000_000 && Wording.whole(.nan) == 0 && Wording.amount(-.infinity) == "-1000000000000000")
    }

    @Test("broccoli, lentils and an apple rate well; hard candy and cola rate limited")
    func wholeFoodsAgainstSweets() throws {
        for (id, name) in [("11090", "broccoli"), ("16070", "lentils"), ("09003", "apple")] {
            let rating = try assess(id, 150, name).health.rating
            #expect(rating == .nutritious || rating == .good, "\(name) → \(rating)")
        }
        #expect(try assess("11090", 150, "broccoli").health.rating == .nutritious)
        for (id, name) in [("19107", "hard candy"), ("14400", "cola")] {
            let rating = try assess(id, 40, name).health.rating
            #expect(rating == .limited, "\(name) → \(rating)")
        }
    }

    @Test("processing points follow the food's processing level")
    func processingPart() throws {
        #expect(try assess("11090", 100, "broccoli").health.processing == 100)
        #expect(try assess("04053", 10, "olive oil").health.processing == 75)
        #expect(try assess("01009", 30, "cheddar").health.processing == 50)
        #expect(try assess("14400", 355, "cola").health.processing == 15)
    }

    @Test("the score is 0.33 × nutrient density + 0.33 × processing + 0.34 × goal alignment, rounded")
    func scoreFormula() throws {
        let pizza = try assess("21224", 250, "cheese pizza").health
        let weighted = 0.33 * Double(pizza.nutrientDensity) + 0.33 * Double(pizza.processing) + 0.34 * Double(pizza.goalAlignment)
        #expect(pizza.score == Int(weighted.rounded()))
        #expect(pizza.rating == HealthRating(score: pizza.score))
    }

    @Test("nutrient density rewards fibre and protein and counts sugar, saturated fat and sodium against")
    func nutrientDensity() throws {
        let lentils = try assess("16070", 200, "lentils").health.nutrientDensity
        let bacon = try assess("10124", 30, "bacon").health.nutrientDensity
        let candy = try assess("19107", 20, "hard candy").health.nutrientDensity
        #expect(lentils > 90)
        #expect(bacon < 50)
        #expect(candy < 10)
    }

    @Test("a big pizza portion aligns worse with a 1,500 kcal daily goal than without one")
    func calorieGoal() throws {
        let goal = ScoringProfile(dailyCalorieGoal: 1500)
        let withoutGoal = try assess("21224", 400, "cheese pizza").health.goalAlignment
        let withGoal = try assess("21224", 400, "cheese pizza", profile: goal).health.goalAlignment
        #expect(withGoal < withoutGoal - 20, "\(withGoal) vs \(withoutGoal)")
        let broccoli = try assess("11090", 150, "broccoli", profile: goal).health.goalAlignment
        #expect(broccoli == 100)
    }

    @Test("a calorie deficit goal judges energy-dense cheese more strictly")
    func deficitGoal() throws {
        let normal = try assess("01009", 40, "cheddar").health.goalAlignment
        let deficit = try assess("01009", 40, "cheddar", profile: ScoringProfile(calorieBalanceGoal: -500)).health.goalAlignment
        #expect(deficit < normal, "\(deficit) vs \(normal)")
    }

    @Test("a protein goal favours chicken breast over white rice")
    func proteinGoal() throws {
        let proteinGoal = ScoringProfile(proteinGoalGrams: 140)
        let rice = try assess("20045", 150, "white rice").health.goalAlignment
        let riceWithGoal = try assess("20045", 150, "white rice", profile: proteinGoal).health.goalAlignment
        let chickenWithGoal = try assess("05064", 150, "chicken breast", profile: proteinGoal).health.goalAlignment
        #expect(riceWithGoal < rice)
        #expect(chickenWithGoal > riceWithGoal)
    }

    @Test("the meal score is weighted by calories: a 1 kcal item does not move a 600 kcal meal")
    func mealScoreWeighting() throws {
        let pizza = try TestMeals.portion("21224", 224, "cheese pizza")
        let lemon = try TestMeals.portion("09152", 5, "lemon juice")
        let scored = [pizza, lemon].map { (item: $0, health: HealthScorer.assess($0, profile: .standard).health) }
        #expect(scored[1].health.score > scored[0].health.score + 20)
        let meal = try #require(HealthScorer.mealScore(scored))
        #expect(meal.score == scored[0].health.score)
        #expect(meal.rating == scored[0].health.rating)
    }

    @Test("a meal without energy takes the plain mean, and no items give no meal score")
    func mealScoreEdges() throws {
        let water = try TestMeals.portion("14555", 250, "water")
        let weightless = try TestMeals.portion("11090", 0, "broccoli")
        let scored = [
            (item: water, health: HealthScore(nutrientDensity: 40, processing: 100, goalAlignment: 60)),
            (item: weightless, health: HealthScore(nutrientDensity: 100, processing: 100, goalAlignment: 100)),
        ]
        let meal = try #require(HealthScorer.mealScore(scored))
        #expect(meal.score == (scored[0].health.score + scored[1].health.score + 1) / 2)
        #expect(HealthScorer.mealScore([]) == nil)
    }

    @Test("each food gets its own reason and encouragement, naming it and its numbers")
    func sentencesAreSpecific() throws {
        let foods = [("11090", "Broccoli"), ("14400", "Cola"), ("19107", "Hard candy"), ("01009", "Cheddar"), ("20045", "White rice")]
        let assessments = try foods.map { try assess($0.0, 100, $0.1) }
        for ((_, name), assessment) in zip(foods, assessments) {
            #expect(assessment.reason.hasPrefix("\(name):"), "\(assessment.reason)")
            #expect(assessment.encouragement.lowercased().contains(name.lowercased()), "\(assessment.encouragement)")
        }
        #expect(Set(assessments.map(\.reason)).count == foods.count)
        #expect(Set(assessments.map(\.encouragement)).count == foods.count)
        let broccoli = "Broccoli: whole or minimally processed, with 2.6 g fibre and 2.8 g protein per 100 g and very little sodium."
        #expect(assessments[0].reason == broccoli)
        #expect(assessments[1].reason.contains("ultra-processed, with 9 g sugar per 100 g"), "\(assessments[1].reason)")
    }

    @Test("no sentence uses shaming words")
    func supportiveTone() throws {
        let shaming = ["bad", "unhealthy", "junk", "guilt", "cheat", "shame", "terrible", "avoid", "never"]
        var sentences: [String] = []
        for (id, name) in [("14400", "cola"), ("19120", "milk chocolate"), ("10124", "bacon"), ("21118", "hot dog")] {
            let assessment = try assess(id, 100, name)
            sentences += [assessment.reason, assessment.encouragement]
        }
        for diet in DietPreference.allCases {
            sentences.append(DietScorer.score(try TestMeals.hotDog(), profile: ScoringProfile(diet: diet)).explanation)
        }
        for sentence in sentences {
            let words = Set(FoodNameTokenizer.words(sentence))
            #expect(words.isDisjoint(with: shaming), "\(sentence)")
        }
    }

    @Test(
        "ratings change at 50, 70 and 90 and read as labels",
        arguments: [(49, HealthRating.limited), (50, .fair), (69, .fair), (70, .good), (89, .good), (90, .nutritious)])
    func ratings(score: Int, rating: HealthRating) {
        #expect(HealthRating(score: score) == rating)
        #expect(rating.label == rating.rawValue.prefix(1).uppercased() + rating.rawValue.dropFirst())
    }
}

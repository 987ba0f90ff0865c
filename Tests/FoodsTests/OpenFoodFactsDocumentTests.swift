import FoodData
import Foundation
import Synchronization
import Testing

@testable import FoodsService
@testable import FoodsTesting

/// Open Food Facts' product documents (the stand-in's, in the shapes OFF's API gives, odd ones included) read into
/// our products: converted where OFF gives another unit or basis, marked missing where it gives nothing, never guessed.
@Suite("Reading Open Food Facts product documents")
struct OpenFoodFactsDocumentTests {
    func details(_ code: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> ProductDetails {
        guard case .found(let details) = try OpenFoodFactsDocument.read(try FoodsFixtures.openFoodFactsAnswer(code)) else {
            Issue.record("\(code) was not read as a product", sourceLocation: sourceLocation)
            throw CancellationError()
        }
        return details
    }

    @Test("a complete product per 100 g: every nutrient, sodium in mg, serving, allergens, diet flags, NOVA and Nutri-Score")
    func complete() throws {
        let yoghurt = try details("4260123450014")
        #expect(yoghurt.basis == .per100g && yoghurt.per100.isComplete && yoghurt.per100.missing.isEmpty)
        #expect(yoghurt.per100.calories == 68 && yoghurt.per100.protein == 4.1 && yoghurt.per100.sodium == 52)
        #expect(yoghurt.servingSize == .init(amount: 150, unit: "g") && yoghurt.allergens == [.milk])
        #expect(yoghurt.vegan == false && yoghurt.vegetarian == true && yoghurt.novaGroup == 1 && yoghurt.nutriScore == "a")
    }

    @Test("numbers written as strings are read as numbers")
    func strings() throws {
        let cereal = try details("0850012345008")
        #expect(cereal.per100.calories == 380 && cereal.per100.protein == 8.8 && cereal.per100.sugars == 22.5 && cereal.per100.sodium == 400)
        #expect(cereal.servingSize?.amount == 40)
    }

    @Test("energy given in kJ only is converted to kcal")
    func kilojoulesOnly() throws {
        let bread = try details("4260123450021")
        #expect(bread.per100.calories == (1420 / 4.184 * 10).rounded() / 10)
    }

    @Test("values given per serving only become per 100 g through the serving's size")
    func perServingOnly() throws {
        let bar = try details("4260123450038")
        #expect(bar.per100.calories == 420 && bar.per100.fat == 18 && bar.per100.protein == 9)
        #expect(bar.servingSize == .init(amount: 30, unit: "g"))
    }

    @Test("salt without sodium gives sodium (salt × 400 mg); unknown diet status stays unknown")
    func saltOnly() throws {
        let cheese = try details("4260123450045")
        #expect(cheese.per100.sodium == 600 && cheese.vegan == nil && cheese.vegetarian == nil)
    }

    @Test("missing nutrients are marked missing, not invented; an unknown Nutri-Score is none")
    func missing() throws {
        let butter = try details("4260123450052")
        #expect(butter.per100.calories == 620 && butter.per100.fat == 50)
        #expect(butter.per100.protein == nil && butter.per100.carbs == nil && !butter.per100.isComplete)
        #expect(butter.per100.missing == ["protein", "carbs", "fiber", "sugars", "saturatedFat", "sodium"])
        #expect(butter.nutriScore == nil && butter.novaGroup == nil)
    }

    @Test("no nutriments and no product name: named by its generic name, every nutrient missing")
    func nothingButAName() throws {
        let product = try details("4260123450069")
        #expect(!product.name.isEmpty && product.per100.missing.count == 8)
    }

    @Test("a drink is per 100 ml, its serving in ml")
    func drink() throws {
        let lemonade = try details("4260123450076")
        #expect(lemonade.basis == .per100ml && lemonade.servingSize == .init(amount: 330, unit: "ml"))
        #expect(lemonade.vegan == true && lemonade.novaGroup == 4 && lemonade.nutriScore == "e")
    }

    @Test("an answer with status 0 is no product; a long name is cut to 200 characters and the first of several brands kept")
    func oddAnswers() throws {
        #expect(try OpenFoodFactsDocument.read(try FoodsFixtures.openFoodFactsAnswer("4260123450083")) == .notFound)
        let muesli = try details("4260123450090")
        #expect(muesli.name.count == 200 && muesli.brand?.contains(",") == false)
    }

    @Test("bodies that are not OFF's JSON are errors, never products")
    func garbage() {
        #expect(throws: OpenFoodFactsDocumentError.notJSON) { try OpenFoodFactsDocument.read(Data("<html>busy</html>".utf8)) }
        #expect(throws: OpenFoodFactsDocumentError.notJSON) { try OpenFoodFactsDocument.read(Data(#"{"code":"1","produ"#.utf8)) }
        #expect(throws: OpenFoodFactsDocumentError.noStatus) { try OpenFoodFactsDocument.read(Data(#"{"hello":"world"}"#.utf8)) }
    }

    @Test("our GTIN-14 is asked for in OFF's form: 13 digits, or the 8 of an EAN-8")
    func openFoodFactsCode() throws {
        #expect(try #require(GTIN("036000291452")).openFoodFactsCode == "0036000291452")
        #expect(try #require(GTIN("4260123450014")).openFoodFactsCode == "4260123450014")
        #expect(try #require(GTIN("40170725")).openFoodFactsCode == "40170725")
    }
}

/// The request budget and the breaker Open Food Facts' client keeps.
@Suite("Open Food Facts' budget and breaker")
struct OpenFoodFactsLimitsTests {
    final class Clock: Sendable {
        let start = ContinuousClock.now
        let offset = Mutex<Duration>(.zero)
        var now: ContinuousClock.Instant { start + offset.withLock { $0 } }
        func advance(_ duration: Duration) { offset.withLock { $0 += duration } }
    }

    @Test("the budget allows a minute's requests at once, then refills evenly")
    func budget() {
        let clock = Clock()
        let budget = RequestBudget(perMinute: 3, now: { clock.now })
        #expect([budget.take(), budget.take(), budget.take(), budget.take()] == [true, true, true, false])
        clock.advance(.seconds(20))
        #expect(budget.take() && !budget.take())
    }

    @Test("failures in a row open the breaker; after the open time one trial goes; its success closes it")
    func breaker() {
        let clock = Clock()
        let breaker = ConsecutiveFailureBreaker(name: "test", failureThreshold: 2, openDuration: .seconds(30), now: { clock.now })
        #expect(breaker.admit() == nil)
        breaker.failed()
        breaker.succeeded()
        breaker.failed()
        #expect(breaker.admit() == nil, "a success in between resets the count")
        breaker.failed()
        #expect(breaker.admit() == .seconds(30))
        clock.advance(.seconds(31))
        #expect(breaker.admit() == nil, "the trial")
        #expect(breaker.admit() != nil, "one trial at a time")
        breaker.failed()
        #expect(breaker.admit() != nil, "a failed trial opens it again")
        clock.advance(.seconds(31))
        #expect(breaker.admit() == nil)
        breaker.succeeded()
        #expect(breaker.admit() == nil && breaker.admit() == nil)
    }
}

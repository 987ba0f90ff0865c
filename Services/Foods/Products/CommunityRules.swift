import Configuration
import Foundation
import ServiceDefaults

/// How far the foods service trusts what users add and report (`FOODS_*`, issue 50): how many products an account
/// may add a day, how many reports it may send a day, which accounts' reports count and whose logging confirms a
/// product (`EstablishedAccountRule`), and how many counted reports hold a community product back.
struct CommunityRules: Sendable, Equatable {
    /// Distinct established accounts whose reports hold a community product back from others until an operator looks
    /// (`FOODS_REPORTS_TO_HOLD`, default 3, 1...1000).
    var reportsToHold: Int
    /// Reports one account may send in 24 hours, counted or not (`FOODS_REPORTS_PER_DAY`, default 5, 1...1000); past it
    /// 429 `report_limit_reached`.
    var reportsPerDay: Int
    /// Products one account may add in 24 hours (`FOODS_PRODUCTS_PER_DAY`, default 20, 1...10000); past it 429
    /// `product_limit_reached`.
    var productsPerDay: Int
    /// Which accounts' reports count and whose logging confirms a product.
    var establishedAccount: EstablishedAccountRule

    /// The window of the daily limits.
    static let day: TimeInterval = 86400

    init(reportsToHold: Int = 3, reportsPerDay: Int = 5, productsPerDay: Int = 20, establishedAccount: EstablishedAccountRule = .init()) {
        self.reportsToHold = reportsToHold
        self.reportsPerDay = reportsPerDay
        self.productsPerDay = productsPerDay
        self.establishedAccount = establishedAccount
    }

    init(config: ConfigReader) throws {
        self.init(
            reportsToHold: try config.integer("foods.reports.to.hold", default: 3, in: 1...1000),
            reportsPerDay: try config.integer("foods.reports.per.day", default: 5, in: 1...1000),
            productsPerDay: try config.integer("foods.products.per.day", default: 20, in: 1...10000),
            establishedAccount: EstablishedAccountRule(
                minimumAge: TimeInterval(try config.integer("foods.established.account.min.age.hours", default: 72, in: 0...8760) * 3600),
                minimumLoggedMeals: try config.integer("foods.established.account.min.meals", default: 5, in: 0...10000)))
    }
}

import EventContracts
import FoodData
import Foundation
import Logging
import Messaging
import PostgresSupport
import Testing

@testable import FoodsService
@testable import FoodsTesting

/// The foods service's `PostgresProductStore` on an emptied, migrated itest_foods (with `FoodsEventHandler` applying
/// events to it in a transaction, as the inbox does) beside the router tests' `InMemoryProductStore`, fed the same
/// calls and events, so that every answer of the one can be held against the other's. Product ids are made by each
/// store, so a product is named by a `ProductRef` holding both.
struct ProductStorePair: Sendable {
    /// Which store a call goes to.
    enum Side: Sendable {
        case postgres, memory
    }

    let postgres: PostgresProductStore
    let memory = InMemoryProductStore()
    let handler: FoodsEventHandler
    let pool: PostgresPool

    /// 2026-11-18 22:13:20 UTC, a whole second (PostgreSQL keeps microseconds, so whole seconds compare exactly).
    static let start = Date(timeIntervalSince1970: 1_795_000_000)
    static let logger = TestEnvironment.logger

    /// Runs `body` with both stores, the PostgreSQL one on an emptied itest_foods migrated as the service migrates it.
    static func run(_ body: @Sendable (ProductStorePair) async throws -> Void) async throws {
        let settings = try TestEnvironment.postgresSettings(schema: "itest_foods")
        try await withPostgres(settings) { pool in
            try await emptySchema(pool)
            let migrations = try Migration.load(
                from: URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
                    .appendingPathComponent("Services/Foods/Migrations"))
            _ = try await MigrationRunner(client: pool, schema: settings.schema, logger: logger).apply(
                Migration.publishing + Migration.consuming + migrations)
            let store = PostgresProductStore(client: pool)
            let handler = FoodsEventHandler(products: store, answers: BarcodeAnswerCache(lifetime: .zero, capacity: 1), now: { start })
            try await body(ProductStorePair(postgres: store, handler: handler, pool: pool))
        }
    }

    /// The same call on both stores.
    func both<T: Sendable>(_ call: @Sendable (any ProductStore, Side) async throws -> T) async throws -> (postgres: T, memory: T) {
        (try await call(postgres, .postgres), try await call(memory, .memory))
    }

    /// The same call on both stores, whose answers must agree as `view` sees them; the PostgreSQL store's answer.
    @discardableResult
    func agree<T: Sendable, View: Equatable>(
        _ what: String, _ call: @Sendable (any ProductStore, Side) async throws -> T, view: @Sendable (T) -> View,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> T {
        let answers = try await both(call)
        #expect(
            view(answers.postgres) == view(answers.memory), "\(what): PostgreSQL \(view(answers.postgres)), memory \(view(answers.memory))",
            sourceLocation: sourceLocation)
        return answers.postgres
    }

    /// Applies the event `make` builds for each store (the products it names differ by store), as the consumer does.
    func apply(_ make: (Side) -> ReceivedEvent, now: Date = start) async throws {
        let event = make(.postgres)
        try await pool.transaction(logger: Self.logger) { connection in
            try await handler.handle(event, on: connection, logger: Self.logger)
        }
        try memory.apply(make(.memory), now: now)
    }

    /// Applies one event to both stores (it names no product).
    func apply(_ event: ReceivedEvent, now: Date = start) async throws {
        try await apply({ _ in event }, now: now)
    }

    /// A new account with the history `rule` asks: registered 30 days before `at`, with 10 meals logged.
    func establishedAccount(at time: Date = start) async throws -> UUID {
        let userId = UUID()
        try await apply(FoodsTestEvents.profile(of: userId, at: time.addingTimeInterval(-30 * 86400)))
        for _ in 0..<10 { try await apply(FoodsTestEvents.meal(UUID(), of: userId, at: time.addingTimeInterval(-86400))) }
        return userId
    }

    /// `userId` logs a consumed meal naming `product`, at `time`.
    func log(_ product: ProductRef, by userId: UUID, at time: Date = start) async throws {
        let mealId = UUID()
        try await apply { side in FoodsTestEvents.meal(mealId, of: userId, products: [product.id(side)], at: time) }
    }
}

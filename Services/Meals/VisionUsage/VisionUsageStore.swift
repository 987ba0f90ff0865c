import Foundation
import Logging
import PostgresSupport

/// Users' vision usage per key, month and model, and their monthly budgets (`PostgresVisionUsageStore` in the
/// service, in memory in router tests).
protocol VisionUsageStore: Sendable {
    /// Adds `calls` answers and their `usage` to the user's row of `usageKey`, `model` and `month`.
    func record(
        userId: UUID, usageKey: String, model: String, month: UsageMonth, calls: Int, usage: TokenUsage, at now: Date, logger: Logger
    ) async throws

    /// The user's rows of `month`, the server's key first, then by key and model.
    func rows(userId: UUID, month: UsageMonth, logger: Logger) async throws -> [VisionUsageRepository.Row]

    /// The user's monthly budget in dollars; nil when they set none.
    func budget(userId: UUID, logger: Logger) async throws -> Double?

    /// Sets the user's monthly budget, replacing theirs.
    func setBudget(_ dollars: Double, userId: UUID, at now: Date, logger: Logger) async throws

    /// Removes the user's monthly budget, if they set one.
    func deleteBudget(userId: UUID, logger: Logger) async throws
}

/// Vision usage and budgets in PostgreSQL (`vision_usage`, `vision_budgets`).
struct PostgresVisionUsageStore: VisionUsageStore {
    let client: PostgresPool
    let repository: VisionUsageRepository

    func record(
        userId: UUID, usageKey: String, model: String, month: UsageMonth, calls: Int, usage: TokenUsage, at now: Date, logger: Logger
    ) async throws {
        try await repository.record(
            userId: userId, usageKey: usageKey, model: model, month: month, calls: calls, usage: usage, at: now, client: client, logger: logger)
    }

    func rows(userId: UUID, month: UsageMonth, logger: Logger) async throws -> [VisionUsageRepository.Row] {
        try await repository.rows(userId: userId, month: month, client: client, logger: logger)
    }

    func budget(userId: UUID, logger: Logger) async throws -> Double? {
        try await repository.budget(userId: userId, client: client, logger: logger)
    }

    func setBudget(_ dollars: Double, userId: UUID, at now: Date, logger: Logger) async throws {
        try await repository.setBudget(dollars, userId: userId, at: now, client: client, logger: logger)
    }

    func deleteBudget(userId: UUID, logger: Logger) async throws {
        try await repository.deleteBudget(userId: userId, client: client, logger: logger)
    }
}

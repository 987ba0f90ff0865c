import Foundation
import Logging
import PostgresNIO
import PostgresSupport

/// Users' vision usage per key, month and model (`vision_usage`) and their monthly budgets (`vision_budgets`). Every
/// query logs to the caller's `logger`.
struct VisionUsageRepository: Sendable {
    /// The usage key of analyses paid by the server's own provider key.
    static let serverKey = "server"
    /// The usage key of a user's own key stored before keys had usage ids (never written by this version).
    static let ownKey = "own"

    /// One month's usage of one key and model.
    struct Row: Sendable, Equatable {
        var usageKey: String
        var model: String
        var calls: Int
        var usage: TokenUsage
    }

    /// Adds `calls` answers and their `usage` to the user's row of `usageKey`, `model` and `month`.
    func record(
        userId: UUID, usageKey: String, model: String, month: UsageMonth, calls: Int, usage: TokenUsage, at now: Date, client: PostgresPool,
        logger: Logger
    ) async throws {
        try await client.query(
            """
            INSERT INTO vision_usage (user_id, usage_key, month, model, calls, prompt_tokens, completion_tokens, updated_at)
            VALUES (\(userId), \(usageKey), \(month.firstDay)::date, \(model), \(calls), \(usage.promptTokens), \(usage.completionTokens), \(now))
            ON CONFLICT (user_id, month, usage_key, model) DO UPDATE SET calls = vision_usage.calls + EXCLUDED.calls,
                prompt_tokens = vision_usage.prompt_tokens + EXCLUDED.prompt_tokens,
                completion_tokens = vision_usage.completion_tokens + EXCLUDED.completion_tokens, updated_at = EXCLUDED.updated_at
            """, logger: logger)
    }

    /// The user's rows of `month`, server first, then by key and model.
    func rows(userId: UUID, month: UsageMonth, client: PostgresPool, logger: Logger) async throws -> [Row] {
        let rows = try await client.query(
            """
            SELECT usage_key, model, calls, prompt_tokens, completion_tokens FROM vision_usage
            WHERE user_id = \(userId) AND month = \(month.firstDay)::date
            ORDER BY usage_key <> \(Self.serverKey), usage_key, model
            """, logger: logger)
        var found: [Row] = []
        for try await (usageKey, model, calls, prompt, completion) in rows.decode((String, String, Int, Int, Int).self) {
            found.append(Row(usageKey: usageKey, model: model, calls: calls, usage: TokenUsage(promptTokens: prompt, completionTokens: completion)))
        }
        return found
    }

    /// The user's monthly budget in dollars; nil when they set none.
    func budget(userId: UUID, client: PostgresPool, logger: Logger) async throws -> Double? {
        let rows = try await client.query("SELECT monthly_budget_usd FROM vision_budgets WHERE user_id = \(userId)", logger: logger)
        for try await budget in rows.decode(Double.self) { return budget }
        return nil
    }

    /// Sets the user's monthly budget, replacing theirs.
    func setBudget(_ dollars: Double, userId: UUID, at now: Date, client: PostgresPool, logger: Logger) async throws {
        try await client.query(
            """
            INSERT INTO vision_budgets (user_id, monthly_budget_usd, updated_at) VALUES (\(userId), \(dollars), \(now))
            ON CONFLICT (user_id) DO UPDATE SET monthly_budget_usd = EXCLUDED.monthly_budget_usd, updated_at = EXCLUDED.updated_at
            """, logger: logger)
    }

    /// Removes the user's monthly budget, if they set one.
    func deleteBudget(userId: UUID, client: PostgresPool, logger: Logger) async throws {
        try await client.query("DELETE FROM vision_budgets WHERE user_id = \(userId)", logger: logger)
    }

    /// Forgets the user's usage and budget inside the caller's transaction (`user.deleted`).
    func deleteAll(userId: UUID, on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query("DELETE FROM vision_usage WHERE user_id = \(userId)", logger: logger)
        try await connection.query("DELETE FROM vision_budgets WHERE user_id = \(userId)", logger: logger)
    }
}

import Foundation
import Logging
import Synchronization

@testable import MealsService

/// Users' sealed vision keys, usage and budgets in memory, for router tests.
final class InMemoryVisionStore: VisionKeyStore, VisionUsageStore {
    private struct UsageKey: Hashable {
        var userId: UUID
        var month: String
        var usageKey: String
        var model: String
    }

    private struct State {
        var keys: [UUID: VisionKeyRepository.Row] = [:]
        var usage: [UsageKey: (calls: Int, usage: TokenUsage)] = [:]
        var budgets: [UUID: Double] = [:]
    }

    private let state = Mutex(State())

    /// The sealed form of the user's stored key (what the database would hold).
    func sealedKey(of userId: UUID) -> [UInt8]? { state.withLock { $0.keys[userId]?.sealed } }

    func save(_ row: VisionKeyRepository.Row, userId: UUID, logger: Logger) async throws {
        state.withLock { $0.keys[userId] = row }
    }

    func find(userId: UUID, logger: Logger) async throws -> VisionKeyRepository.Row? {
        state.withLock { $0.keys[userId] }
    }

    func delete(userId: UUID, logger: Logger) async throws {
        _ = state.withLock { $0.keys.removeValue(forKey: userId) }
    }

    func record(
        userId: UUID, usageKey: String, model: String, month: UsageMonth, calls: Int, usage: TokenUsage, at now: Date, logger: Logger
    ) async throws {
        state.withLock { state in
            let key = UsageKey(userId: userId, month: month.firstDay, usageKey: usageKey, model: model)
            let before = state.usage[key] ?? (0, .zero)
            state.usage[key] = (
                before.calls + calls,
                TokenUsage(
                    promptTokens: before.usage.promptTokens + usage.promptTokens,
                    completionTokens: before.usage.completionTokens + usage.completionTokens)
            )
        }
    }

    func rows(userId: UUID, month: UsageMonth, logger: Logger) async throws -> [VisionUsageRepository.Row] {
        state.withLock { state in
            state.usage.filter { $0.key.userId == userId && $0.key.month == month.firstDay }
                .map { VisionUsageRepository.Row(usageKey: $0.key.usageKey, model: $0.key.model, calls: $0.value.calls, usage: $0.value.usage) }
                .sorted {
                    ($0.usageKey != VisionUsageRepository.serverKey ? 1 : 0, $0.usageKey, $0.model)
                        < ($1.usageKey != VisionUsageRepository.serverKey ? 1 : 0, $1.usageKey, $1.model)
                }
        }
    }

    func budget(userId: UUID, logger: Logger) async throws -> Double? {
        state.withLock { $0.budgets[userId] }
    }

    func setBudget(_ dollars: Double, userId: UUID, at now: Date, logger: Logger) async throws {
        state.withLock { $0.budgets[userId] = dollars }
    }

    func deleteBudget(userId: UUID, logger: Logger) async throws {
        _ = state.withLock { $0.budgets.removeValue(forKey: userId) }
    }
}

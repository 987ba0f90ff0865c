import Foundation
import Logging
import PostgresSupport

/// Users' sealed vision keys, one per user (`PostgresVisionKeyStore` in the service, in memory in router tests).
protocol VisionKeyStore: Sendable {
    /// Stores the user's key, replacing the one they had.
    func save(_ row: VisionKeyRepository.Row, userId: UUID, logger: Logger) async throws

    /// The user's stored key; nil without one.
    func find(userId: UUID, logger: Logger) async throws -> VisionKeyRepository.Row?

    /// Forgets the user's key, if they had one.
    func delete(userId: UUID, logger: Logger) async throws
}

/// Vision keys in PostgreSQL (`user_vision_keys`).
struct PostgresVisionKeyStore: VisionKeyStore {
    let client: PostgresPool
    let repository: VisionKeyRepository

    func save(_ row: VisionKeyRepository.Row, userId: UUID, logger: Logger) async throws {
        try await repository.save(row, userId: userId, client: client, logger: logger)
    }

    func find(userId: UUID, logger: Logger) async throws -> VisionKeyRepository.Row? {
        try await repository.find(userId: userId, client: client, logger: logger)
    }

    func delete(userId: UUID, logger: Logger) async throws {
        try await repository.delete(userId: userId, client: client, logger: logger)
    }
}

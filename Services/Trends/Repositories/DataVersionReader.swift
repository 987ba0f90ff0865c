import Foundation
import Logging
import PostgresNIO
import PostgresSupport

/// Reads `user_data_versions`, the first and only query of a dashboard read whose report is ready.
struct DataVersionReader: Sendable {
    let client: PostgresPool

    /// The user's data version: 0 before the first event of theirs was applied.
    func version(of userId: UUID, logger: Logger) async throws -> Int64 {
        try await client.execute(UserDataVersionStatement(userId: userId), logger: logger).first ?? 0
    }
}

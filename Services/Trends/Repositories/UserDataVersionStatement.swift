import Foundation
import PostgresNIO

/// The user's data version (`user_data_versions`), the one query of a dashboard read whose report is ready: prepared
/// once per connection.
struct UserDataVersionStatement: PostgresPreparedStatement {
    static let sql = "SELECT version FROM user_data_versions WHERE user_id = $1"
    typealias Row = Int64

    let userId: UUID

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 1)
        bindings.append(userId)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> Int64 {
        try row.decode(Int64.self)
    }
}

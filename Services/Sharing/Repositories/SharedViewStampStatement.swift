import Foundation
import PostgresNIO

/// The stamp of an open link (`SharedViewStamp`), the one query of a share view whose answer is ready: prepared once
/// per connection. No row when the link is unknown, revoked, expired at `now` or its meal is gone.
struct SharedViewStampStatement: PostgresPreparedStatement {
    static let sql = """
        SELECT meals.meal_id, meals.version, display_names.display_name, links.expires_at, meal_photos.digest
        FROM links JOIN meals ON meals.meal_id = links.meal_id AND NOT meals.deleted AND meals.snapshot IS NOT NULL
        LEFT JOIN display_names ON display_names.user_id = links.user_id AND links.show_display_name
        LEFT JOIN meal_photos ON meal_photos.meal_id = links.meal_id AND links.include_photo
        WHERE links.token = $1 AND links.revoked_at IS NULL AND links.expires_at > $2
        """
    typealias Row = SharedViewStamp

    let token: String
    let now: Date

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 2)
        bindings.append(token)
        bindings.append(now)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> SharedViewStamp {
        let (mealId, version, displayName, expiresAt, digest) = try row.decode((UUID, Int, String?, Date, String?).self)
        return SharedViewStamp(mealId: mealId, mealVersion: version, displayName: displayName, expiresAt: expiresAt, photoDigest: digest)
    }
}

/// `POST /api/share/meal/:id` body; every field is optional.
struct ShareRequest: Decodable, Sendable {
    /// 1 to 30 days; 7 when absent.
    var expiresInDays: Int?
    /// Show the meal's photo on the link (only when the meal has one).
    var includePhoto: Bool?
    /// Show the owner's display name on the link.
    var showDisplayName: Bool?

    static let defaultDays = 7
    static let maximumDays = 30
}

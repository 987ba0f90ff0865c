/// A simulated app user's account as the app keeps it: credentials, current tokens and the meals it knows of.
struct UserAccount: Sendable {
    var email: String
    var password: String
    var accessToken: String
    var refreshToken: String
    /// The user's meals that count (consumed), newest last.
    var mealIds: [String] = []
    /// Meals analysed but not eaten yet, which the user may consume.
    var scannedMealIds: [String] = []
    /// Where the user's changes feed was last read to; nil before the first sync (a full download).
    var syncCursor: String?
    /// Around what the user weighs, in kg.
    var weightKg: Double

    /// Adopts the tokens of a login or refresh answer.
    mutating func adopt(_ session: SessionTokens) {
        accessToken = session.accessToken
        refreshToken = session.refreshToken
    }
}

/// The part of a register, login or refresh answer the app keeps.
struct SessionTokens: Decodable, Sendable {
    var accessToken: String
    var refreshToken: String
}

/// The part of a meal answer the app keeps.
struct MealReference: Decodable, Sendable {
    var id: String
    var version: Int
}

/// The part of a changes-feed page the app keeps.
struct SyncPageReference: Decodable, Sendable {
    var nextCursor: String
    var hasMore: Bool
}

/// The part of a share answer the app keeps.
struct ShareReference: Decodable, Sendable {
    var token: String
}

/// The public addresses of a link, made from the configured base URL.
struct PublicAddresses: Sendable {
    /// Without a trailing slash.
    let baseURL: String

    func page(_ token: String) -> String { "\(baseURL)/shared/\(token)" }
    func card(_ token: String) -> String { "\(baseURL)/shared/\(token)/card.svg" }
    /// The PNG rendering of the card, the image link previews show.
    func cardImage(_ token: String) -> String { "\(baseURL)/shared/\(token)/card.png" }
    func photo(_ token: String) -> String { "\(baseURL)/shared/\(token)/photo" }
}

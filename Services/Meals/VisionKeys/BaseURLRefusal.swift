/// Why a user's provider base URL is refused: the sentence answered for the `baseUrl` field.
struct BaseURLRefusal: Error, Equatable {
    var reason: String

    init(_ reason: String) {
        self.reason = reason
    }
}

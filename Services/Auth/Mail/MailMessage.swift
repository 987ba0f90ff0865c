/// One plain-text email.
struct MailMessage: Sendable, Equatable {
    var from: String
    var to: String
    var subject: String
    var body: String
}

/// Why a message did not reach the SMTP relay. Says which step failed and the relay's reply code; never the
/// credentials or the message.
enum SMTPDeliveryError: Error, CustomStringConvertible, Equatable {
    /// The relay answered `code` where the conversation needed another reply.
    case rejected(step: String, code: Int)
    /// `SMTP_TLS=starttls` but the relay did not offer STARTTLS: nothing more is said in the clear.
    case startTLSNotOffered
    /// The relay sent data after agreeing to STARTTLS, before the TLS handshake (a response injection).
    case dataBeforeTLS
    /// A username is set but the relay offers neither AUTH PLAIN nor AUTH LOGIN.
    case noSupportedAuthMechanism(offered: String)
    /// A reply that is not SMTP, or the relay closed the connection.
    case brokenReply(step: String)
    /// The whole conversation took longer than allowed.
    case timedOut

    var description: String {
        switch self {
        case .rejected(let step, let code): "SMTP relay refused \(step) with \(code)"
        case .startTLSNotOffered: "SMTP relay does not offer STARTTLS; refusing to continue in the clear (SMTP_TLS=starttls)"
        case .dataBeforeTLS: "SMTP relay sent data between STARTTLS and the TLS handshake; connection dropped"
        case .noSupportedAuthMechanism(let offered):
            "SMTP relay offers no AUTH PLAIN or LOGIN (offered: \(offered.isEmpty ? "none" : offered))"
        case .brokenReply(let step): "SMTP relay gave no valid reply to \(step)"
        case .timedOut: "SMTP conversation timed out"
        }
    }
}

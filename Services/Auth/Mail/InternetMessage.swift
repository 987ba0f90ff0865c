import Foundation
import WireJSON

/// A `MailMessage` as an Internet message (RFC 5322) ready for SMTP: `Date`, `Message-ID`, encoded `From` and
/// `Subject`, MIME headers, and the body with CRLF line ends.
struct InternetMessage: Sendable {
    let message: MailMessage
    let date: Date
    /// `<random@sender-domain>`, new for every message.
    let messageID: String

    init(_ message: MailMessage, date: Date, messageID: String? = nil) {
        self.message = message
        self.date = date
        self.messageID = messageID ?? "<\(UUID().lowercasedString)@\(Self.domain(of: message.from))>"
    }

    /// Whether the body needs an 8-bit transport (`BODY=8BITMIME`): it has bytes beyond ASCII.
    var bodyIs8Bit: Bool { message.body.utf8.contains { $0 >= 0x80 } }

    /// Headers, blank line and body, every line ending in CRLF.
    var text: String {
        var headers = "Date: \(Self.rfc5322Date(date))\r\n"
        headers += HeaderField.mailbox("From", message.from)
        headers += HeaderField.mailbox("To", message.to)
        headers += "Message-ID: \(messageID)\r\n"
        headers += HeaderField.text("Subject", message.subject)
        headers += "MIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n"
        headers += "Content-Transfer-Encoding: \(bodyIs8Bit ? "8bit" : "7bit")\r\n"
        return headers + "\r\n" + Self.lines(of: message.body).map { $0 + "\r\n" }.joined()
    }

    /// The text as SMTP's DATA carries it: lines that begin with "." get a second one (RFC 5321 4.5.2), and the
    /// lone "." line ends it.
    var dataSection: String {
        text.split(separator: "\r\n", omittingEmptySubsequences: false).dropLast()
            .map { line in (line.hasPrefix(".") ? "." : "") + String(line) + "\r\n" }.joined() + ".\r\n"
    }

    /// The body's lines, whatever line ends it was written with (CRLF, LF or CR); a final line end adds no empty line.
    static func lines(of body: String) -> [String] {
        let unified = body.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\r", with: "\n")
        var lines = unified.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if lines.count > 1, lines.last == "" { lines.removeLast() }
        return lines
    }

    /// The domain of the address in `Name <user@domain>` (or `localhost` when it has none).
    static func domain(of field: String) -> String {
        let address = SMTPMailSender.address(in: field)
        guard let at = address.lastIndex(of: "@"), address.index(after: at) < address.endIndex else { return "localhost" }
        return String(address[address.index(after: at)...])
    }

    /// `Tue, 04 Mar 2025 09:05:00 +0000`: the RFC 5322 date-time, in UTC, with English names whatever the locale.
    static func rfc5322Date(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let parts = calendar.dateComponents([.weekday, .day, .month, .year, .hour, .minute, .second], from: date)
        let weekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        func two(_ value: Int?) -> String { String(format: "%02d", value ?? 0) }
        return "\(weekdays[(parts.weekday ?? 1) - 1]), \(two(parts.day)) \(months[(parts.month ?? 1) - 1]) \(parts.year ?? 1970) "
            + "\(two(parts.hour)):\(two(parts.minute)):\(two(parts.second)) +0000"
    }
}

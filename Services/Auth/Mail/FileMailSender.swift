import Foundation
import Logging

/// Development delivery: each message becomes a `.eml` file in `directory`, and a log line names the file,
/// the recipient and the subject. The body (which may hold a reset link) stays out of the log.
struct FileMailSender: MailSender {
    let directory: URL
    let logger: Logger

    func send(_ message: MailMessage) async throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let file = directory.appendingPathComponent("\(Int(Date().timeIntervalSince1970 * 1000))-\(UUID().uuidString.prefix(8)).eml")
        let text = "From: \(message.from)\r\nTo: \(message.to)\r\nSubject: \(message.subject)\r\n\r\n\(message.body)\r\n"
        try Data(text.utf8).write(to: file, options: .atomic)
        logger.info("mail written", metadata: ["to": .string(message.to), "subject": .string(message.subject), "file": .string(file.path)])
    }
}

import Foundation
import Logging
import NIOCore
import NIOPosix
import NIOSSL

/// Sends mail through an SMTP relay (RFC 5321): implicit TLS as RFC 8314 recommends (or plain TCP for a relay on
/// a trusted network), `AUTH PLAIN` when a username is set, one connection per message.
struct SMTPMailSender: MailSender {
    let settings: SMTPSettings
    let logger: Logger

    /// A reply the relay gave that the conversation cannot continue from. Carries only the code and the relay's text.
    struct RejectedError: Error, CustomStringConvertible {
        var step: String
        var code: Int
        var description: String { "SMTP relay refused \(step) with \(code)" }
    }

    func send(_ message: MailMessage) async throws {
        let tls = try settings.implicitTLS ? NIOSSLContext(configuration: .makeClientConfiguration()) : nil
        let host = settings.host
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connectTimeout(.seconds(10))
            .connect(host: settings.host, port: settings.port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    if let tls {
                        try channel.pipeline.syncOperations.addHandler(NIOSSLClientHandler(context: tls, serverHostname: host))
                    }
                    return try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                }
            }
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                try await channel.executeThenClose { inbound, outbound in
                    var conversation = SMTPConversation(inbound: inbound.makeAsyncIterator(), outbound: outbound)
                    try await conversation.expect(220, step: "greeting")
                    try await conversation.command("EHLO nutritionai", expect: 250)
                    if let username = settings.username {
                        let credentials = Data("\0\(username)\0\(settings.password ?? "")".utf8).base64EncodedString()
                        try await conversation.command("AUTH PLAIN \(credentials)", expect: 235, step: "AUTH")
                    }
                    try await conversation.command("MAIL FROM:<\(Self.address(in: message.from))>", expect: 250)
                    try await conversation.command("RCPT TO:<\(Self.address(in: message.to))>", expect: 250)
                    try await conversation.command("DATA", expect: 354)
                    try await conversation.command(Self.dataSection(message), expect: 250, step: "message")
                    try await conversation.command("QUIT", expect: 221)
                }
            }
            group.addTask {
                try await Task.sleep(for: .seconds(30))
                throw RejectedError(step: "conversation (timed out)", code: 0)
            }
            try await group.next()
            group.cancelAll()
        }
        logger.info("mail sent by SMTP", metadata: ["subject": .string(message.subject)])
    }

    /// `Name <addr>` or `addr` to `addr`.
    static func address(in field: String) -> String {
        if let open = field.lastIndex(of: "<"), let close = field.lastIndex(of: ">"), open < close {
            return String(field[field.index(after: open)..<close])
        }
        return field.trimmingCharacters(in: .whitespaces)
    }

    /// Headers and body with CRLF line ends, dot-stuffed, ending in the lone dot.
    static func dataSection(_ message: MailMessage) -> String {
        let headers = "From: \(message.from)\r\nTo: \(message.to)\r\nSubject: \(message.subject)\r\n"
            + "MIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: 8bit\r\n"
        let body = message.body.replacingOccurrences(of: "\r\n", with: "\n").split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0.hasPrefix(".") ? "." + $0 : String($0) }.joined(separator: "\r\n")
        return headers + "\r\n" + body + "\r\n."
    }
}

/// One SMTP dialogue: commands out, multi-line replies (`250-...` then `250 ...`) in.
private struct SMTPConversation {
    var inbound: NIOAsyncChannelInboundStream<ByteBuffer>.AsyncIterator
    let outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>
    var pending = ""

    mutating func command(_ line: String, expect code: Int, step: String? = nil) async throws {
        try await outbound.write(ByteBuffer(string: line + "\r\n"))
        try await expect(code, step: step ?? String(line.prefix(while: { $0 != " " && $0 != ":" })))
    }

    mutating func expect(_ code: Int, step: String) async throws {
        while true {
            let line = try await nextLine()
            guard line.count >= 3, let replyCode = Int(line.prefix(3)) else {
                throw SMTPMailSender.RejectedError(step: step, code: 0)
            }
            if line.count > 3, line[line.index(line.startIndex, offsetBy: 3)] == "-" { continue }
            guard replyCode == code else { throw SMTPMailSender.RejectedError(step: step, code: replyCode) }
            return
        }
    }

    private mutating func nextLine() async throws -> String {
        while true {
            if let end = pending.range(of: "\r\n") {
                let line = String(pending[..<end.lowerBound])
                pending.removeSubrange(..<end.upperBound)
                return line
            }
            guard pending.utf8.count < 64 * 1024, let chunk = try await inbound.next() else {
                throw SMTPMailSender.RejectedError(step: "reply (connection closed)", code: 0)
            }
            pending += String(buffer: chunk)
        }
    }
}

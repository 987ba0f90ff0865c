import Foundation
import NIOCore

/// One SMTP dialogue (RFC 5321): commands out, single- and multi-line replies (`250-...` then `250 ...`) in.
struct SMTPConversation {
    private var inbound: NIOAsyncChannelInboundStream<ByteBuffer>.AsyncIterator
    private let outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>
    private var pending: [UInt8] = []

    init(inbound: NIOAsyncChannelInboundStream<ByteBuffer>, outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>) {
        self.inbound = inbound.makeAsyncIterator()
        self.outbound = outbound
    }

    /// Whether the relay sent bytes the conversation has not read yet.
    var hasUnreadData: Bool { !pending.isEmpty }

    /// Sends `line` and returns the text of the reply's lines once it is `code`. `step` names the command in errors
    /// (default: the command's verb); pass one for lines that carry secrets.
    @discardableResult
    mutating func command(_ line: String, expect code: Int, step: String? = nil) async throws -> [String] {
        try await outbound.write(ByteBuffer(string: line + "\r\n"))
        return try await expect(code, step: step ?? String(line.prefix(while: { $0 != " " && $0 != ":" })))
    }

    /// Reads one reply and returns the text of its lines (after the code) if its code is `code`.
    @discardableResult
    mutating func expect(_ code: Int, step: String) async throws -> [String] {
        var texts: [String] = []
        while true {
            let line = try await nextLine(step: step)
            guard line.utf8.count >= 3, let replyCode = Int(line.prefix(3)) else { throw SMTPDeliveryError.brokenReply(step: step) }
            let rest = line.dropFirst(3)
            texts.append(String(rest.dropFirst()))
            if rest.first == "-" { continue }
            guard replyCode == code else { throw SMTPDeliveryError.rejected(step: step, code: replyCode) }
            return texts
        }
    }

    /// Says EHLO and returns the extensions the relay offers, keyword (upper case) to its parameters.
    mutating func hello(as name: String) async throws -> [String: String] {
        let lines = try await command("EHLO \(name)", expect: 250)
        var extensions: [String: String] = [:]
        for line in lines.dropFirst() {
            // Some relays still write the pre-standard `AUTH=PLAIN LOGIN`.
            let separator = line.firstIndex(where: { $0 == " " || $0 == "=" }) ?? line.endIndex
            let keyword = line[..<separator].uppercased()
            let parameters = separator < line.endIndex ? String(line[line.index(after: separator)...]) : ""
            if let earlier = extensions[keyword] {
                extensions[keyword] = earlier + " " + parameters
            } else {
                extensions[keyword] = parameters
            }
        }
        return extensions
    }

    /// Signs in with AUTH PLAIN if the relay offers it, else AUTH LOGIN (`mechanisms` is the EHLO `AUTH` parameter).
    mutating func authenticate(username: String, password: String, mechanisms: String?) async throws {
        let offered = Set((mechanisms ?? "").uppercased().split(separator: " ").map(String.init))
        if offered.contains("PLAIN") {
            let credentials = Data("\0\(username)\0\(password)".utf8).base64EncodedString()
            try await command("AUTH PLAIN \(credentials)", expect: 235, step: "AUTH PLAIN")
        } else if offered.contains("LOGIN") {
            try await command("AUTH LOGIN", expect: 334, step: "AUTH LOGIN")
            try await command(Data(username.utf8).base64EncodedString(), expect: 334, step: "AUTH LOGIN (username)")
            try await command(Data(password.utf8).base64EncodedString(), expect: 235, step: "AUTH LOGIN (password)")
        } else {
            throw SMTPDeliveryError.noSupportedAuthMechanism(offered: offered.sorted().joined(separator: " "))
        }
    }

    /// Sends raw text (the message's data section) without adding a line end, then reads the reply.
    mutating func send(_ text: String, expect code: Int, step: String) async throws {
        try await outbound.write(ByteBuffer(string: text))
        try await expect(code, step: step)
    }

    private mutating func nextLine(step: String) async throws -> String {
        while true {
            let lineEnd = pending.indices.first { pending[$0] == UInt8(ascii: "\n") && $0 > 0 && pending[$0 - 1] == UInt8(ascii: "\r") }
            if let end = lineEnd {
                let line = String(decoding: pending[..<(end - 1)], as: UTF8.self)
                pending.removeSubrange(...end)
                return line
            }
            guard pending.count < 64 * 1024, let chunk = try await inbound.next() else {
                throw SMTPDeliveryError.brokenReply(step: step)
            }
            pending += chunk.readableBytesView
        }
    }
}

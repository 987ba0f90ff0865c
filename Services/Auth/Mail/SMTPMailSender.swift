import Foundation
import Logging
import NIOCore
import NIOPosix
import NIOSSL

/// Sends mail through an SMTP relay (RFC 5321), one connection per message: implicit TLS as RFC 8314 recommends,
/// STARTTLS (RFC 3207, and nothing more is said if the relay does not offer it), or plain TCP for a relay on a
/// trusted network. With a username it signs in (AUTH PLAIN, else LOGIN), so credentials travel only inside TLS
/// or on a network `SMTP_TLS=none` declares trusted. The relay's certificate is verified against the system's
/// roots or the `SMTP_CA_FILE` bundle, and its name against `SMTP_HOST`.
struct SMTPMailSender: MailSender {
    let settings: SMTPSettings
    let now: @Sendable () -> Date
    let logger: Logger
    /// Built once: loading trust roots is too costly to repeat per message.
    private let tls: NIOSSLContext?
    /// How long connecting may take, and then the whole conversation.
    private let connectTimeout = TimeAmount.seconds(10)
    private let conversationTimeout = Duration.seconds(30)
    /// The name given in EHLO.
    private static let clientName = "nutritionai"

    /// Fails when the TLS settings cannot be turned into a context (a bad `SMTP_CA_FILE`), so the service stops at start.
    init(settings: SMTPSettings, now: @escaping @Sendable () -> Date = { Date() }, logger: Logger) throws {
        self.settings = settings
        self.now = now
        self.logger = logger
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.minimumTLSVersion = .tlsv12
        if let certificates = settings.trustedCertificates { configuration.trustRoots = .certificates(certificates) }
        tls = settings.security == .none ? nil : try NIOSSLContext(configuration: configuration)
    }

    func send(_ message: MailMessage) async throws {
        let internetMessage = InternetMessage(message, date: now())
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await deliver(internetMessage) }
            group.addTask {
                try await Task.sleep(for: conversationTimeout)
                throw SMTPDeliveryError.timedOut
            }
            defer { group.cancelAll() }
            try await group.next()
        }
        logger.info(
            "mail sent by SMTP", metadata: ["subject": .string(message.subject), "message_id": .string(internetMessage.messageID)])
    }

    /// `Name <addr>` or `addr` to `addr`.
    static func address(in field: String) -> String {
        if let open = field.lastIndex(of: "<"), let close = field.lastIndex(of: ">"), open < close {
            return String(field[field.index(after: open)..<close])
        }
        return field.trimmingCharacters(in: .whitespaces)
    }

    private func deliver(_ message: InternetMessage) async throws {
        let channel = try await connect()
        try await channel.executeThenClose { inbound, outbound in
            var conversation = SMTPConversation(inbound: inbound, outbound: outbound)
            try await conversation.expect(220, step: "greeting")
            var extensions = try await conversation.hello(as: Self.clientName)
            if settings.security == .startTLS {
                guard extensions["STARTTLS"] != nil else { throw SMTPDeliveryError.startTLSNotOffered }
                try await conversation.command("STARTTLS", expect: 220)
                guard !conversation.hasUnreadData else { throw SMTPDeliveryError.dataBeforeTLS }
                try await startTLS(on: channel.channel)
                // RFC 3207 4.2: forget what was learnt in the clear and ask again.
                extensions = try await conversation.hello(as: Self.clientName)
            }
            if let username = settings.username {
                try await conversation.authenticate(username: username, password: settings.password ?? "", mechanisms: extensions["AUTH"])
            }
            let bodyParameter = message.bodyIs8Bit && extensions["8BITMIME"] != nil ? " BODY=8BITMIME" : ""
            try await conversation.command("MAIL FROM:<\(Self.address(in: message.message.from))>\(bodyParameter)", expect: 250)
            try await conversation.command("RCPT TO:<\(Self.address(in: message.message.to))>", expect: 250)
            try await conversation.command("DATA", expect: 354)
            try await conversation.send(message.dataSection, expect: 250, step: "message")
            try await conversation.command("QUIT", expect: 221)
        }
    }

    private func connect() async throws -> NIOAsyncChannel<ByteBuffer, ByteBuffer> {
        let implicitTLS = settings.security == .implicit
        return try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connectTimeout(connectTimeout)
            .connect(host: settings.host, port: settings.port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    if implicitTLS { try channel.pipeline.syncOperations.addHandler(makeTLSHandler()) }
                    return try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                }
            }
    }

    /// Puts TLS in front of everything already in the pipeline; the handshake starts at once, and the next command
    /// waits for it. A failed handshake (an untrusted certificate) ends the conversation with its error.
    private func startTLS(on channel: any Channel) async throws {
        try await channel.eventLoop.submit {
            try channel.pipeline.syncOperations.addHandler(makeTLSHandler(), position: .first)
        }.get()
    }

    private func makeTLSHandler() throws -> NIOSSLClientHandler {
        guard let tls else { preconditionFailure("TLS handler asked for with SMTP_TLS=none") }
        // An address is checked against the certificate's IP entries; only a name goes into SNI.
        let isAddress = (try? SocketAddress(ipAddress: settings.host, port: 0)) != nil
        return try NIOSSLClientHandler(context: tls, serverHostname: isAddress ? nil : settings.host)
    }
}

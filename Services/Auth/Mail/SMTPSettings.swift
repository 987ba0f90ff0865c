import Configuration
import Foundation
import NIOSSL
import ServiceDefaults

/// An SMTP relay (`SMTP_HOST`, `SMTP_PORT`, `SMTP_USERNAME`, `SMTP_PASSWORD`, `SMTP_TLS`, `SMTP_CA_FILE`).
struct SMTPSettings: Sendable {
    /// How the connection is protected (`SMTP_TLS`).
    enum Security: String, Sendable {
        /// TLS from the first byte (RFC 8314), port 465 by default.
        case implicit
        /// Plain connection upgraded with STARTTLS (RFC 3207) before anything else is said, port 587 by default;
        /// a relay that does not offer STARTTLS gets nothing.
        case startTLS = "starttls"
        /// No TLS at all, for a relay on a trusted network (port 25 by default).
        case none
    }

    var host: String
    var port: Int
    var username: String?
    var password: String?
    var security: Security
    /// The certificates that may sign the relay's certificate: a PEM bundle read at start (`SMTP_CA_FILE`), or nil
    /// for the system's roots.
    var trustedCertificates: [NIOSSLCertificate]?

    init(
        host: String, port: Int, username: String? = nil, password: String? = nil, security: Security,
        trustedCertificates: [NIOSSLCertificate]? = nil
    ) {
        self.host = host
        self.port = port
        self.username = username
        self.password = password
        self.security = security
        self.trustedCertificates = trustedCertificates
    }

    init(host: String, config: ConfigReader) throws {
        let tls = config.string(forKey: "smtp.tls", default: Security.implicit.rawValue)
        guard let security = Security(rawValue: tls) else {
            throw ConfigurationError.invalid("SMTP_TLS", reason: "must be implicit, starttls or none")
        }
        let defaultPort = switch security {
            case .implicit: 465
            case .startTLS: 587
            case .none: 25
            }
        var trusted: [NIOSSLCertificate]?
        if let caFile = config.string(forKey: "smtp.ca.file"), !caFile.isEmpty {
            do {
                trusted = try NIOSSLCertificate.fromPEMFile(caFile)
            } catch {
                throw ConfigurationError.invalid("SMTP_CA_FILE", reason: "cannot read PEM certificates from \(caFile) (\(error))")
            }
            guard trusted?.isEmpty == false else {
                throw ConfigurationError.invalid("SMTP_CA_FILE", reason: "\(caFile) holds no PEM certificate")
            }
        }
        self.init(
            host: host, port: config.int(forKey: "smtp.port", default: defaultPort),
            username: config.string(forKey: "smtp.username"), password: config.string(forKey: "smtp.password", isSecret: true),
            security: security, trustedCertificates: trusted)
    }
}

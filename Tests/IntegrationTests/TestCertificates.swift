import Foundation

/// A throwaway certificate authority and a server certificate it signed for `localhost` and 127.0.0.1, made with the
/// `openssl` command in a temporary directory, so TLS tests verify certificates for real without the system's roots.
struct TestCertificates: Sendable {
    let directory: URL
    /// The CA's certificate (PEM): what a client must trust.
    var authority: URL { directory.appendingPathComponent("ca.pem") }
    /// The server's certificate (PEM) and its private key.
    var serverCertificate: URL { directory.appendingPathComponent("server.pem") }
    var serverKey: URL { directory.appendingPathComponent("server.key") }

    /// One set for the whole test run, made at first use.
    static let shared = Task { try await make() }

    /// Makes a new CA and server certificate (P-256 keys, valid two days).
    static func make() async throws -> TestCertificates {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("certificates-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let certificates = TestCertificates(directory: directory)
        let extensions = directory.appendingPathComponent("server.ext")
        try Data(
            """
            subjectAltName=DNS:localhost,IP:127.0.0.1
            basicConstraints=critical,CA:FALSE
            keyUsage=critical,digitalSignature
            extendedKeyUsage=serverAuth

            """.utf8
        ).write(to: extensions)
        let path = { (name: String) in directory.appendingPathComponent(name).path }
        let log = directory.appendingPathComponent("openssl.log")
        let key = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        try await ChildProcess.run(
            "openssl",
            ["req", "-x509"] + key + [
                "-keyout", path("ca.key"), "-out", path("ca.pem"), "-days", "2", "-subj", "/CN=NutritionAI test CA",
                "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign",
            ], log: log)
        try await ChildProcess.run(
            "openssl", ["req"] + key + ["-keyout", path("server.key"), "-out", path("server.csr"), "-subj", "/CN=localhost"], log: log)
        try await ChildProcess.run(
            "openssl",
            [
                "x509", "-req", "-in", path("server.csr"), "-CA", path("ca.pem"), "-CAkey", path("ca.key"), "-CAcreateserial",
                "-out", path("server.pem"), "-days", "2", "-extfile", extensions.path,
            ], log: log)
        return certificates
    }
}

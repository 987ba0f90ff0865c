import HTTPTypes
import NIOCore
import Testing

@testable import Gateway

/// An upstream's answer head as the client gets it.
@Suite("Upstream answer headers")
struct UpstreamAnswerHeadersTests {
    /// A head an upstream might send, hop-by-hop headers in several cases among them.
    private static let upstream =
        "HTTP/1.1 201 Created\r\nContent-Type: application/json\r\nCONNECTION: keep-alive\r\nKeep-Alive: timeout=5\r\n"
        + "transfer-encoding: chunked\r\nVary: Accept-Encoding\r\nx-request-id: upstream-made\r\nServer: meals\r\nETag: \"7\"\r\n"
        + "Proxy-Authenticate: Basic\r\nTrailer: X-Sum\r\n\r\n"

    private func clientHead(
        _ upstream: String, serverName: String?, decided: HTTPFields, connection: UpstreamAnswerHeaders.Connection? = nil
    ) throws -> String {
        let head = try #require(try UpstreamAnswerHead(parsing: ByteBuffer(string: upstream), requestIsHead: false))
        var bytes = ByteBuffer()
        UpstreamAnswerHeaders(serverName: serverName).write(
            head, decided: decided, requestId: "req-1", chunked: head.framing == .chunked, connection: connection, into: &bytes)
        return String(buffer: bytes)
    }

    @Test("hop-by-hop headers and the upstream's request id are dropped in any case; the framing, the decided ones and the request id are added")
    func dropsAndAdds() throws {
        let head = try clientHead(Self.upstream, serverName: "nutritionai", decided: [.vary: "Origin", HTTPField.Name("RateLimit-Remaining")!: "9"])
        #expect(
            head
                == "HTTP/1.1 201 Created\r\nContent-Type: application/json\r\nVary: Accept-Encoding\r\nETag: \"7\"\r\n"
                + "Transfer-Encoding: chunked\r\nVary: Origin\r\nRateLimit-Remaining: 9\r\nX-Request-Id: req-1\r\nServer: nutritionai\r\n\r\n")
    }

    @Test("without a Server of its own the gateway passes the upstream's on; a closing connection says so")
    func upstreamServerKept() throws {
        let head = try clientHead(
            "HTTP/1.1 200 OK\r\nServer: meals\r\nContent-Length: 2\r\nConnection: close\r\n\r\n", serverName: nil, decided: [:], connection: .close)
        #expect(head == "HTTP/1.1 200 OK\r\nServer: meals\r\nContent-Length: 2\r\nConnection: close\r\nX-Request-Id: req-1\r\n\r\n")
    }

    @Test("names compare without regard to case, and only whole names match")
    func caseInsensitiveNames() {
        #expect(UpstreamAnswerHeaders.isNotPassedBack("Connection".utf8))
        #expect(UpstreamAnswerHeaders.isNotPassedBack("UPGRADE".utf8))
        #expect(UpstreamAnswerHeaders.isNotPassedBack("X-Request-ID".utf8))
        #expect(!UpstreamAnswerHeaders.isNotPassedBack("Connections".utf8))
        #expect(!UpstreamAnswerHeaders.isNotPassedBack("Content-Type".utf8))
        #expect(!UpstreamAnswerHeaders.isNotPassedBack("t".utf8))
    }
}

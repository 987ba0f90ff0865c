import HTTPTypes
import NIOHTTP1
import Testing

@testable import Gateway

/// An upstream's answer headers as the client gets them.
@Suite("Upstream answer headers")
struct UpstreamAnswerHeadersTests {
    /// Headers an upstream might send, hop-by-hop ones in several cases among them.
    private var upstream: HTTPHeaders {
        HTTPHeaders([
            ("Content-Type", "application/json"), ("CONNECTION", "keep-alive"), ("Keep-Alive", "timeout=5"),
            ("transfer-encoding", "chunked"), ("Vary", "Accept-Encoding"), ("x-request-id", "upstream-made"),
            ("Server", "meals"), ("ETag", "\"7\""), ("Proxy-Authenticate", "Basic"), ("Trailer", "X-Sum"),
        ])
    }

    @Test("hop-by-hop headers and the upstream's request id are dropped in any case; the decided ones and the request id are added")
    func dropsAndAdds() {
        let headers = UpstreamAnswerHeaders(serverName: "nutritionai").headers(
            upstream, decided: [.vary: "Origin", HTTPField.Name("RateLimit-Remaining")!: "9"], requestId: "req-1")
        #expect(
            headers.map(\.name) == [
                "Content-Type", "Vary", "ETag", "Vary", "RateLimit-Remaining", "X-Request-Id", "Server",
            ])
        #expect(headers["Vary"] == ["Accept-Encoding", "Origin"])
        #expect(headers["X-Request-Id"] == ["req-1"])
        #expect(headers["Server"] == ["nutritionai"], "the gateway's Server replaces the upstream's")
    }

    @Test("without a Server of its own the gateway passes the upstream's on")
    func upstreamServerKept() {
        let headers = UpstreamAnswerHeaders(serverName: nil).headers(upstream, decided: [:], requestId: "req-2")
        #expect(headers["Server"] == ["meals"])
        #expect(headers["Connection"].isEmpty && headers["Transfer-Encoding"].isEmpty)
    }

    @Test("names compare without regard to case, and only whole names match")
    func caseInsensitiveNames() {
        #expect(UpstreamAnswerHeaders.isNotPassedBack("Connection"))
        #expect(UpstreamAnswerHeaders.isNotPassedBack("UPGRADE"))
        #expect(UpstreamAnswerHeaders.isNotPassedBack("X-Request-ID"))
        #expect(!UpstreamAnswerHeaders.isNotPassedBack("Connections"))
        #expect(!UpstreamAnswerHeaders.isNotPassedBack("Content-Type"))
        #expect(!UpstreamAnswerHeaders.isNotPassedBack("t"))
    }
}

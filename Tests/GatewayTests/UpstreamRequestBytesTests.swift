import NIOCore
import NIOHTTP1
import Testing

@testable import Gateway

/// A forwarded request as its upstream connection's bytes.
@Suite("Upstream request bytes")
struct UpstreamRequestBytesTests {
    @Test("the head: request line, the address's Host, then the fields in their order")
    func head() {
        let head = HTTPRequestHead(
            version: .http1_1, method: .POST, uri: "/api/meals?day=2026-12-02",
            headers: HTTPHeaders([("Content-Type", "application/json"), ("Content-Length", "2"), ("X-User-Id", "u-1")]))
        let bytes = UpstreamRequestBytes.head(head, host: "127.0.0.1:8082", allocator: ByteBufferAllocator())
        #expect(
            String(buffer: bytes)
                == "POST /api/meals?day=2026-12-02 HTTP/1.1\r\nHost: 127.0.0.1:8082\r\nContent-Type: application/json\r\n"
                + "Content-Length: 2\r\nX-User-Id: u-1\r\n\r\n")
    }

    @Test("a declared body goes as it is; a chunked one in chunks, an empty part never (it would end the body)")
    func body() throws {
        let allocator = ByteBufferAllocator()
        let part = ByteBuffer(string: String(repeating: "x", count: 26))
        #expect(UpstreamRequestBytes.body(part, chunked: false, allocator: allocator) == part)
        let chunk = try #require(UpstreamRequestBytes.body(part, chunked: true, allocator: allocator))
        #expect(String(buffer: chunk) == "1a\r\n" + String(repeating: "x", count: 26) + "\r\n")
        #expect(UpstreamRequestBytes.body(ByteBuffer(), chunked: true, allocator: allocator) == nil)
        #expect(String(buffer: ChunkedBytes.last(allocator: allocator)) == "0\r\n\r\n")
    }
}

import HTTPTypes
import NIOCore
import NIOEmbedded
import NIOHTTP1
import NIOHTTPTypes
import Testing

@testable import Gateway

@Suite("The gateway's HTTP/1 conversion")
struct GatewayHTTP1CodecTests {
    @Test("an origin-form target is the path as sent; an absolute one gives its path and query")
    func requestTargets() {
        #expect(GatewayHTTP1Codec.path(of: "/api/meals?day=2026-11-29&x=%20") == "/api/meals?day=2026-11-29&x=%20")
        #expect(GatewayHTTP1Codec.path(of: "//api/meals") == "//api/meals")
        #expect(GatewayHTTP1Codec.path(of: "http://gateway.test/api/meals?day=2026-11-29") == "/api/meals?day=2026-11-29")
        #expect(GatewayHTTP1Codec.path(of: "http://gateway.test") == "/")
        #expect(GatewayHTTP1Codec.path(of: "*") == "*")
    }

    @Test("a request head: its method, the first Host as the authority and out of the fields, the other fields in order")
    func requestHead() throws {
        var headers = HTTPHeaders()
        headers.add(name: "HOST", value: "api.nutritionai.test")
        headers.add(name: "Accept", value: "application/json")
        headers.add(name: "host", value: "second.test")
        headers.add(name: "X-Request-Id", value: "abc")
        let request = try GatewayHTTP1Codec.request(HTTPRequestHead(version: .http1_1, method: .PATCH, uri: "/api/meals/1", headers: headers))
        #expect(request.method == .patch)
        #expect(request.scheme == "http")
        #expect(request.authority == "api.nutritionai.test")
        #expect(request.path == "/api/meals/1")
        #expect(request.headerFields.map(\.name.rawName) == ["Accept", "host", "X-Request-Id"])
        #expect(request.headerFields[.accept] == "application/json")

        let other = try GatewayHTTP1Codec.request(HTTPRequestHead(version: .http1_1, method: .RAW(value: "PURGE"), uri: "/"))
        #expect(other.method.rawValue == "PURGE")
        #expect(throws: InvalidRequestMethod.self) {
            try GatewayHTTP1Codec.request(HTTPRequestHead(version: .http1_1, method: .RAW(value: "GE T"), uri: "/"))
        }
    }

    @Test("through a channel request parts become HTTPTypes' parts; an answer's head becomes HTTP/1.1 with its fields")
    func channel() throws {
        let channel = EmbeddedChannel(handler: GatewayHTTP1Codec())
        var headers = HTTPHeaders()
        headers.add(name: "Host", value: "api.test")
        headers.add(name: "Content-Length", value: "2")
        try channel.writeInbound(HTTPServerRequestPart.head(HTTPRequestHead(version: .http1_1, method: .POST, uri: "/api/x", headers: headers)))
        try channel.writeInbound(HTTPServerRequestPart.body(ByteBuffer(string: "{}")))
        try channel.writeInbound(HTTPServerRequestPart.end(nil))
        guard case .head(let request) = try channel.readInbound(as: HTTPRequestPart.self) else {
            Issue.record("no request head")
            return
        }
        #expect(request.method == .post && request.path == "/api/x" && request.authority == "api.test")
        #expect(request.headerFields[.contentLength] == "2")
        guard case .body(let body) = try channel.readInbound(as: HTTPRequestPart.self) else {
            Issue.record("no body")
            return
        }
        #expect(String(buffer: body) == "{}")
        guard case .end = try channel.readInbound(as: HTTPRequestPart.self) else {
            Issue.record("no end")
            return
        }

        let head = GatewayHTTP1Codec.head(HTTPResponse(status: .created, headerFields: [.location: "/api/x/1", .contentLength: "0"]))
        #expect(head.status == .created && head.version == .http1_1)
        #expect(head.headers["Location"] == ["/api/x/1"] && head.headers["Content-Length"] == ["0"])
        #expect(try channel.finish().isClean)
    }
}

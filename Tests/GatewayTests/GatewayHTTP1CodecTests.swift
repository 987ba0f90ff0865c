import HTTPTypes
import NIOCore
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

    @Test("trailers keep every field, Host included; an answer's head becomes HTTP/1.1 with its fields in order")
    func trailersAndAnswers() {
        var trailers = HTTPHeaders()
        trailers.add(name: "Host", value: "api.test")
        trailers.add(name: "X-Checksum", value: "abc")
        trailers.add(name: "bad name", value: "dropped")
        #expect(GatewayHTTP1Codec.fields(trailers, skippingHost: false).map(\.name.rawName) == ["Host", "X-Checksum"])

        let head = GatewayHTTP1Codec.head(HTTPResponse(status: .created, headerFields: [.location: "/api/x/1", .contentLength: "0"]))
        #expect(head.status == .created && head.version == .http1_1)
        #expect(head.headers.map(\.name) == ["Location", "Content-Length"])
        #expect(head.headers["Location"] == ["/api/x/1"] && head.headers["Content-Length"] == ["0"])
    }
}

import HTTPTypes
import NIOCore

/// An upstream's answer head as the client gets it, written as HTTP/1.1 bytes: the upstream's status, its field lines
/// as it sent them (`UpstreamAnswerHead`) without the hop-by-hop ones and its request id, then the framing the client
/// needs (`Transfer-Encoding: chunked` when the body goes on chunked; `Connection: close` when the connection ends after
/// it, `keep-alive` to an HTTP/1.0 client when it does not), the headers the admission decided (rate limit, CORS; a
/// `Vary` of the upstream's is kept beside `Vary: Origin`), the request id and the gateway's `Server`. Nothing is
/// decoded into header objects and encoded again.
struct UpstreamAnswerHeaders: Sendable {
    /// `Server` of every answer, as the router's answers say it; nil passes the upstream's on.
    let serverName: String?

    /// The `Connection` header of an answer.
    enum Connection {
        case close, keepAlive
    }

    /// Writes the client's head of the answer `head`, to the request `requestId`, which the admission gave `decided`;
    /// its body goes on `chunked` or not; with `connection` when one is given.
    func write(
        _ head: UpstreamAnswerHead, decided: HTTPFields, requestId: String, chunked: Bool, connection: Connection?, into buffer: inout ByteBuffer
    ) {
        buffer.writeStaticString("HTTP/1.1 ")
        let code = head.status.code
        buffer.writeInteger(UInt8(ascii: "0") + UInt8(code / 100))
        buffer.writeInteger(UInt8(ascii: "0") + UInt8(code / 10 % 10))
        buffer.writeInteger(UInt8(ascii: "0") + UInt8(code % 10))
        buffer.writeInteger(UInt8(ascii: " "))
        buffer.writeString(head.status.reasonPhrase)
        buffer.writeStaticString("\r\n")
        let dropsServer = serverName != nil
        head.forEachFieldLine { name, line in
            if Self.isNotPassedBack(name) || (dropsServer && ASCIICase.equals(name, lowercased: "server")) { return }
            buffer.writeBytes(line)
        }
        if chunked { buffer.writeStaticString("Transfer-Encoding: chunked\r\n") }
        switch connection {
        case .close: buffer.writeStaticString("Connection: close\r\n")
        case .keepAlive: buffer.writeStaticString("Connection: keep-alive\r\n")
        case nil: break
        }
        for field in decided { buffer.writeHTTPField(field.name.rawName, field.value) }
        buffer.writeHTTPField("X-Request-Id", requestId)
        if let serverName { buffer.writeHTTPField("Server", serverName) }
        buffer.writeStaticString("\r\n")
    }

    /// Whether an upstream's answer header `name` (in any case) is one the client does not get from it.
    static func isNotPassedBack(_ name: some Collection<UInt8>) -> Bool {
        let count = name.count
        guard count < notPassedBackByLength.count else { return false }
        return notPassedBackByLength[count].contains { ASCIICase.equals(name, lowercasedBytes: $0) }
    }

    /// Upstream answer headers the client does not get from the upstream: the hop-by-hop ones, and the request id,
    /// which the gateway sets; by the length of their names (a line's name is compared with those of its length only).
    private static let notPassedBackByLength: [[[UInt8]]] = {
        let names = ProxyHeaders.hopByHop.union(["x-request-id"]).map { Array($0.utf8) }
        var byLength = [[[UInt8]]](repeating: [], count: (names.map(\.count).max() ?? 0) + 1)
        for name in names { byLength[name.count].append(name) }
        return byLength
    }()
}

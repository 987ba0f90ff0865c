import NIOCore
import Testing

@testable import Gateway

/// The pass-through reads upstream answers from their bytes and passes them on as they came: every framing, split
/// anywhere across reads, and what it refuses.
@Suite("Upstream answer parser")
struct UpstreamAnswerParserTests {
    /// What the parser reported for one answer: its head (nil before it), the body bytes and whether it ended.
    private struct Read {
        var head: UpstreamAnswerHead?
        var body = ""
        var ended = false
    }

    /// Feeds `reads` in turn (then the connection's close when `closes`) to a parser expecting one answer.
    private func read(_ reads: [String], requestIsHead: Bool = false, closes: Bool = false) throws -> Read {
        var parser = UpstreamAnswerParser()
        parser.expectAnswer(requestIsHead: requestIsHead)
        var result = Read()
        func take(_ event: UpstreamAnswerParser.Event) {
            switch event {
            case .head(let head): result.head = head
            case .body(let bytes): result.body += String(buffer: bytes)
            case .end: result.ended = true
            }
        }
        for text in reads {
            var buffer = ByteBuffer(string: text)
            while let event = try parser.next(from: &buffer) { take(event) }
            #expect(buffer.readableBytes == 0 || result.ended)
        }
        if closes, let event = try parser.inputClosed() { take(event) }
        return result
    }

    /// `text` in two reads, split at every place in turn, gives what it gives in one.
    private func expectSameAtEverySplit(_ text: String, requestIsHead: Bool = false) throws -> Read {
        let whole = try read([text], requestIsHead: requestIsHead)
        let bytes = Array(text.utf8)
        for split in 1..<bytes.count {
            let parts = [String(decoding: bytes[..<split], as: UTF8.self), String(decoding: bytes[split...], as: UTF8.self)]
            let read = try read(parts, requestIsHead: requestIsHead)
            #expect(read.body == whole.body && read.ended == whole.ended && read.head?.status == whole.head?.status, "split at \(split)")
            #expect(read.head.map { String(buffer: $0.fieldLines) } == whole.head.map { String(buffer: $0.fieldLines) }, "split at \(split)")
        }
        return whole
    }

    @Test("a body of a declared length, in one read or split anywhere; the field lines as they came")
    func declaredLength() throws {
        let read = try expectSameAtEverySplit("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 5\r\n\r\nhello")
        let head = try #require(read.head)
        #expect(head.status.code == 200 && head.status.reasonPhrase == "OK")
        #expect(head.framing == .length(5) && head.keepAlive && !head.isEventStream)
        #expect(String(buffer: head.fieldLines) == "Content-Type: text/plain\r\nContent-Length: 5\r\n")
        #expect(read.body == "hello" && read.ended)
    }

    @Test("a chunked body goes on with its framing, extensions and trailers, to its last chunk")
    func chunkedVerbatim() throws {
        let body = "5;name=value\r\nhello\r\n6\r\n world\r\nA\r\n0123456789\r\n0\r\nX-Sum: 3\r\n\r\n"
        let read = try expectSameAtEverySplit("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" + body)
        #expect(read.head?.framing == .chunked)
        #expect(read.body == body && read.ended)
    }

    @Test("a chunked stream of events comes as its chunks' data, so the gateway can end it between chunks")
    func eventStreamDecoded() throws {
        let read = try expectSameAtEverySplit(
            "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"
                + "7\r\ndata: 1\r\n8\r\n\ndata: 2\r\n1\r\n\n\r\n0\r\n\r\n")
        #expect(read.head?.isEventStream == true)
        #expect(read.body == "data: 1\ndata: 2\n" && read.ended)
    }

    @Test("the answers to HEAD, 204 and 304 have no body whatever their length says; an interim answer is skipped")
    func noBody() throws {
        let head = try read(["HTTP/1.1 200 OK\r\nContent-Length: 50\r\n\r\n"], requestIsHead: true)
        #expect(head.head?.framing == Optional(.none) && head.ended && head.body.isEmpty)
        #expect(String(buffer: try #require(head.head).fieldLines) == "Content-Length: 50\r\n", "passed on for the client to read")
        for status in ["204 No Content", "304 Not Modified"] {
            let read = try read(["HTTP/1.1 \(status)\r\nETag: \"1\"\r\n\r\n"])
            #expect(read.ended && read.body.isEmpty, "\(status)")
        }
        let interim = try expectSameAtEverySplit("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\n{}")
        #expect(interim.head?.status.code == 201 && interim.body == "{}" && interim.ended)
    }

    @Test("without a length the body lasts until the connection closes, which then cannot be kept")
    func untilClose() throws {
        let read = try read(["HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nsome", " more"], closes: true)
        #expect(read.head?.framing == .untilClose && read.head?.keepAlive == false)
        #expect(read.body == "some more" && read.ended)
    }

    @Test("whether the upstream keeps the connection: HTTP/1.1 unless it says close, HTTP/1.0 only if it says keep-alive")
    func keepAlive() throws {
        #expect(try read(["HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 0\r\n\r\n"]).head?.keepAlive == false)
        #expect(try read(["HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n"]).head?.keepAlive == false)
        #expect(try read(["HTTP/1.0 200 OK\r\nConnection: Keep-Alive\r\nContent-Length: 0\r\n\r\n"]).head?.keepAlive == true)
        #expect(try read(["HTTP/1.1 200 OK\r\nconnection: upgrade, keep-alive\r\ncontent-length: 0\r\n\r\n"]).head?.keepAlive == true)
    }

    @Test(
        "what is not an answer to pass on is refused",
        arguments: [
            ("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n", UpstreamAnswerError.badTransferEncoding),
            ("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n", .badContentLength),
            ("HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n", .badContentLength),
            ("HTTP/1.1 200 OK\r\nContent-Length: 1 2\r\n\r\n", .badContentLength),
            // Framing fields as llhttp reads them (docs/GATEWAY.md): one Content-Length line; no tab in its value or
            // after `chunked`; no whitespace after a chunk's size.
            ("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 2\r\n\r\n", .badContentLength),
            ("HTTP/1.1 200 OK\r\nContent-Length: 2\t\r\n\r\n", .badContentLength),
            ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\t\r\n\r\n", .badTransferEncoding),
            ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2 \r\nab\r\n0\r\n\r\n", .badChunk),
            ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\t;a=b\r\nab\r\n0\r\n\r\n", .badChunk),
            ("HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", .badTransferEncoding),
            ("HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\n", .badTransferEncoding),
            ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n", .badTransferEncoding),
            ("HTTP/2 200 OK\r\n\r\n", .badStatusLine),
            ("HTTP/1.1 20 OK\r\n\r\n", .badStatusLine),
            ("HTTP/1.1 600 Odd\r\n\r\n", .badStatusLine),
            ("HTTP/1.1 200 O\u{1}K\r\n\r\n", .badStatusLine),
            ("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n\r\n", .switchingProtocols),
            ("HTTP/1.1 200 OK\r\nX-A: 1\r\n folded\r\n\r\n", .badFieldLine),
            ("HTTP/1.1 200 OK\r\nX-A: 1\nX-B: 2\r\n\r\n", .badFieldLine),
            ("HTTP/1.1 200 OK\r\nX-A: a\u{0}b\r\n\r\n", .badFieldLine),
            ("HTTP/1.1 200 OK\r\nX A: 1\r\n\r\n", .badFieldLine),
            ("HTTP/1.1 200 OK\r\n: 1\r\n\r\n", .badFieldLine),
            ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nz\r\n", .badChunk),
            ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n\r\n", .badChunk),
            ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabc\r\n", .badChunk),
            ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1000000000000000\r\n", .badChunk),
        ])
    func refusals(answer: String, error: UpstreamAnswerError) {
        #expect(throws: error) { try read([answer]) }
    }

    @Test("a head past the limit, bytes nobody asked for, and a close in the middle of an answer are errors")
    func connectionErrors() throws {
        let long = "HTTP/1.1 200 OK\r\nX-Long: " + String(repeating: "a", count: UpstreamAnswerParser.maxHeadBytes)
        #expect(throws: UpstreamAnswerError.headTooLarge) { try read([long]) }
        var idle = UpstreamAnswerParser()
        var stray = ByteBuffer(string: "HTTP/1.1 200 OK\r\n\r\n")
        #expect(throws: UpstreamAnswerError.unexpectedBytes) { try idle.next(from: &stray) }
        #expect(throws: UpstreamAnswerError.closedInAnswer) {
            try read(["HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhel"], closes: true)
        }
        // A close before any byte of the answer is not a broken answer: the request may be sent again.
        var waiting = UpstreamAnswerParser()
        waiting.expectAnswer(requestIsHead: false)
        #expect(try waiting.inputClosed() == nil)
    }

    @Test("two answers on one connection, the second expected after the first ended")
    func keptConnection() throws {
        var parser = UpstreamAnswerParser()
        var ends = 0
        for _ in 0..<2 {
            parser.expectAnswer(requestIsHead: false)
            var buffer = ByteBuffer(string: "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
            while let event = try parser.next(from: &buffer) { if case .end = event { ends += 1 } }
            #expect(parser.isIdle)
        }
        #expect(ends == 2)
    }
}

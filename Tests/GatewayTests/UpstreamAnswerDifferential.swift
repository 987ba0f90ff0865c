import NIOCore
import NIOEmbedded
import NIOHTTP1

@testable import Gateway

/// The differential check of the gateway's upstream answer parser against swift-nio's `HTTPResponseDecoder` (llhttp):
/// generated and mutated conversations, fed to both split at random points, and what each made of them
/// (`UpstreamAnswerDifferentialTests`, and `deploy/fuzz-answer-parser` for long runs).
enum UpstreamAnswerDifferential {
    /// What a parser made of a conversation, in order: heads, body bytes (consecutive parts joined; chunked bodies as
    /// their data), ends, and the refusal that stopped it. A head without its reason phrase: swift-nio's decoder
    /// reports the standard phrase of the code, not the one received (which the gateway passes on as it came).
    enum Item: Equatable, CustomStringConvertible {
        /// `keepAlive` nil where the answer lasts until the close, so the connection ends whatever its fields say.
        case head(code: Int, keepAlive: Bool?, fields: [Field])
        case body([UInt8])
        case end
        case refused(String)

        var description: String {
            switch self {
            case .head(let code, let keepAlive, let fields):
                "head \(code) keepAlive=\(keepAlive.map(String.init) ?? "-") \(fields)"
            case .body(let bytes): "body \(String(decoding: bytes, as: UTF8.self).debugDescription)"
            case .end: "end"
            case .refused(let why): "refused (\(why))"
            }
        }

        var isRefusal: Bool {
            if case .refused = self { return true }
            return false
        }
    }

    struct Field: Equatable, CustomStringConvertible {
        let name: String
        let value: String
        var description: String { "\(name): \(value.debugDescription)" }
    }

    /// One answer's bytes and whether its request was HEAD.
    struct Exchange {
        var requestIsHead: Bool
        var bytes: [UInt8]
    }

    /// A conversation on one upstream connection, and where its bytes arrive split.
    struct Case: CustomStringConvertible {
        var exchanges: [Exchange]
        var splits: [Int]
        var bytes: [UInt8] { exchanges.flatMap(\.bytes) }
        /// The bytes in the reads the splits make.
        var reads: [[UInt8]] {
            let all = bytes
            var reads: [[UInt8]] = []
            var start = 0
            for split in splits.sorted() where split > start && split < all.count {
                reads.append(Array(all[start..<split]))
                start = split
            }
            reads.append(Array(all[start...]))
            return reads
        }

        var description: String {
            let requests = exchanges.map { $0.requestIsHead ? "HEAD" : "GET" }.joined(separator: ", ")
            return "requests \(requests); splits \(splits.sorted()); bytes \(String(decoding: bytes, as: UTF8.self).debugDescription)"
        }
    }

    // MARK: - The two parsers

    /// The gateway's parser, expecting each exchange's answer in turn (chunked bodies as their data), then the close;
    /// as the pass-through does, no answer after one that does not keep the connection.
    static func ours(_ conversation: Case) -> [Item] { oursReading(conversation).items }

    /// `ours`, where in the conversation's bytes each answer it expected began (its interim answers included), and how
    /// far it had read when it stopped.
    static func oursReading(_ conversation: Case) -> (items: [Item], answerStarts: [Int], stoppedAt: Int) {
        var parser = UpstreamAnswerParser()
        var items: [Item] = []
        var answerStarts: [Int] = []
        var offset = 0
        var expected = conversation.exchanges.makeIterator()
        var kept = true
        func expectNext() {
            guard kept, let next = expected.next() else { return }
            parser.expectAnswer(requestIsHead: next.requestIsHead, decodesChunks: true)
            answerStarts.append(offset)
        }
        func take(_ event: UpstreamAnswerParser.Event) {
            switch event {
            case .head(let head):
                var fields: [Field] = []
                head.forEachFieldLine { name, line in
                    let value = line[(name.count + 1)..<(line.count - 2)]
                    fields.append(Field(name: String(decoding: name, as: UTF8.self), value: trimmed(Array(value))))
                }
                kept = head.keepAlive
                items.append(
                    .head(
                        code: head.status.code,
                        keepAlive: head.framing == .untilClose ? nil : head.keepAlive, fields: fields))
            case .body(let bytes): append(body: Array(buffer: bytes), to: &items)
            case .end:
                items.append(.end)
                expectNext()
            }
        }
        expectNext()
        do {
            for read in conversation.reads {
                var buffer = ByteBuffer(bytes: read)
                while true {
                    // Counted whether or not an event came: a head split across reads is taken in parts.
                    let before = buffer.readableBytes
                    let event = try parser.next(from: &buffer)
                    offset += before - buffer.readableBytes
                    guard let event else { break }
                    take(event)
                }
            }
            if let event = try parser.inputClosed() { take(event) }
        } catch {
            items.append(.refused("\(error)"))
        }
        return (items, answerStarts, offset)
    }

    /// swift-nio's `HTTPResponseDecoder` in an embedded channel, told each request first (as its request encoder tells
    /// it), interim answers dropped as the gateway skips them, then the bytes and the close.
    static func nio(_ conversation: Case) -> [Item] {
        let decoder = HTTPResponseDecoder(leftOverBytesStrategy: .dropBytes, informationalResponseStrategy: .drop)
        let channel = EmbeddedChannel(handler: ByteToMessageHandler(decoder))
        var items: [Item] = []
        func drain() throws {
            while let part = try channel.readInbound(as: HTTPClientResponsePart.self) {
                switch part {
                case .head(let head):
                    // llhttp keeps a value's trailing whitespace; the gateway's field lines keep it too, and the
                    // comparison is of values without it.
                    let fields = head.headers.map { Field(name: $0.name, value: trimmed(Array($0.value.utf8))) }
                    items.append(.head(code: Int(head.status.code), keepAlive: head.isKeepAlive, fields: fields))
                case .body(let bytes): append(body: Array(buffer: bytes), to: &items)
                case .end: items.append(.end)
                }
            }
        }
        do {
            for exchange in conversation.exchanges {
                try channel.writeOutbound(
                    HTTPClientRequestPart.head(HTTPRequestHead(version: .http1_1, method: exchange.requestIsHead ? .HEAD : .GET, uri: "/")))
            }
            for read in conversation.reads {
                try channel.writeInbound(ByteBuffer(bytes: read))
                try drain()
            }
            _ = try channel.finish()
            try drain()
        } catch {
            try? drain()
            items.append(.refused("\(error)"))
        }
        _ = try? channel.finish()
        return items
    }

    private static func append(body bytes: [UInt8], to items: inout [Item]) {
        guard !bytes.isEmpty else { return }
        if case .body(let earlier)? = items.last {
            items[items.count - 1] = .body(earlier + bytes)
        } else {
            items.append(.body(bytes))
        }
    }

    /// A field value without the optional whitespace around it.
    static func trimmed(_ value: [UInt8]) -> String {
        var value = value[...]
        while let first = value.first, first == 0x20 || first == 0x09 { value = value.dropFirst() }
        while let last = value.last, last == 0x20 || last == 0x09 { value = value.dropLast() }
        return String(decoding: value, as: UTF8.self)
    }
}

extension UpstreamAnswerDifferential {
    /// What the two made of one case, with nio's keep-alive left out where ours says the answer lasts until the close;
    /// a refusal with the body bytes passed on before it (how many came before the fault was seen is each parser's
    /// own affair), and the reason, which each words its own way, as `.refused("")`.
    static func compared(_ conversation: Case) -> (ours: [Item], nio: [Item]) {
        let ours = refusalsAlike(ours(conversation))
        var nio = refusalsAlike(nio(conversation))
        for index in ours.indices where index < nio.count {
            if case .head(_, nil, _) = ours[index], case .head(let code, _, let fields) = nio[index] {
                nio[index] = .head(code: code, keepAlive: nil, fields: fields)
            }
        }
        return (ours, nio)
    }
}

extension UpstreamAnswerDifferential {
    /// `items` with a refusal's reason dropped and the body bytes right before it.
    static func refusalsAlike(_ items: [Item]) -> [Item] {
        guard case .refused? = items.last else { return items }
        var items = Array(items.dropLast())
        if case .body? = items.last { items.removeLast() }
        return items + [.refused("")]
    }
}

// MARK: - Generating cases

/// SplitMix64: a small seeded generator, so every case can be made again from its seed.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

extension UpstreamAnswerDifferential {
    /// The case of `seed`: one to three answers (interim ones before some), every framing, field lines with varied
    /// whitespace and case, chunk extensions and trailers; a third of them mutated (a byte changed, added or
    /// removed; a field line that breaks a framing or grammar rule added), and the bytes split at up to four points.
    static func generated(seed: UInt64) -> Case {
        var random = SeededGenerator(seed: seed)
        let count = Int.random(in: 1...3, using: &random)
        var exchanges: [Exchange] = []
        for index in 0..<count {
            let requestIsHead = Int.random(in: 0..<6, using: &random) == 0
            exchanges.append(
                Exchange(requestIsHead: requestIsHead, bytes: answer(last: index == count - 1, requestIsHead: requestIsHead, using: &random)))
        }
        if Int.random(in: 0..<3, using: &random) == 0 {
            let which = Int.random(in: 0..<exchanges.count, using: &random)
            exchanges[which].bytes = mutated(exchanges[which].bytes, using: &random)
        }
        let total = exchanges.reduce(0) { $0 + $1.bytes.count }
        let splits = (0..<Int.random(in: 0...4, using: &random)).map { _ in Int.random(in: 1...max(1, total), using: &random) }
        return Case(exchanges: exchanges, splits: splits)
    }

    private static let reasons = ["OK", "Created", "Not Found", "Some reason, with words", "", "Ünïcode"]
    private static let statuses = [200, 200, 200, 201, 202, 204, 206, 301, 304, 400, 404, 409, 500, 503]
    private static let fieldPool: [(String, String)] = [
        ("Content-Type", "application/json"), ("X-Request-Id", "3f1c"), ("Cache-Control", "no-store"), ("Set-Cookie", "a=b; Path=/"),
        ("ETag", "\"1\""), ("Vary", "Accept, Origin"), ("Server", "upstream/1.0"), ("X-Empty", ""), ("Date", "Mon, 07 Dec 2026 17:00:00 GMT"),
        ("X-Odd", "a  b\tc"), ("Link", "</a>; rel=preload"),
    ]
    private static let whitespace = ["", " ", "  ", "\t", " \t"]

    /// One answer (maybe after interim ones); without a length only when `last`, as such an answer ends its connection;
    /// a HEAD request's, a 204's and a 304's without body bytes, whatever their fields say.
    private static func answer(last: Bool, requestIsHead: Bool, using random: inout SeededGenerator) -> [UInt8] {
        var text = ""
        if Int.random(in: 0..<8, using: &random) == 0 {
            text += Bool.random(using: &random) ? "HTTP/1.1 100 Continue\r\n\r\n" : "HTTP/1.1 103 Early Hints\r\nLink: </s.css>; rel=preload\r\n\r\n"
        }
        let version = Int.random(in: 0..<10, using: &random) == 0 ? "HTTP/1.0" : "HTTP/1.1"
        let status = statuses.randomElement(using: &random)!
        let reason = reasons.randomElement(using: &random)!
        text += "\(version) \(status) \(reason)\r\n"
        var fields: [(String, String)] = (0..<Int.random(in: 0...4, using: &random)).map { _ in fieldPool.randomElement(using: &random)! }
        switch Int.random(in: 0..<5, using: &random) {
        case 0: fields.append(("Connection", "close"))
        case 1: fields.append(("Connection", "keep-alive"))
        default: break
        }
        let body = (0..<Int.random(in: 0...40, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
        var bodyText: [UInt8] = []
        switch Int.random(in: 0..<(last ? 3 : 2), using: &random) {
        case 0:
            fields.append(("Content-Length", "\(body.count)"))
            bodyText = body
        case 1:
            fields.append(("Transfer-Encoding", Bool.random(using: &random) ? "chunked" : "Chunked"))
            bodyText = chunked(body, using: &random)
        default:
            bodyText = body  // until the close
        }
        fields.shuffle(using: &random)
        for (name, value) in fields {
            let shownName = Bool.random(using: &random) ? name : name.lowercased()
            // Mostly without a tab after the framing fields' values, which llhttp reads otherwise (listed differences).
            let framing = ["Content-Length", "Transfer-Encoding", "Connection"].contains(name)
            let after =
                framing && Int.random(in: 0..<10, using: &random) > 0
                ? ["", " ", "  "].randomElement(using: &random)! : whitespace.randomElement(using: &random)!
            text += "\(shownName):\(whitespace.randomElement(using: &random)!)\(value)\(after)\r\n"
        }
        text += "\r\n"
        return Array(text.utf8) + (requestIsHead || status == 204 || status == 304 ? [] : bodyText)
    }

    /// `body` in one to four chunks (sizes in either case, some with extensions), the last chunk, maybe trailers.
    private static func chunked(_ body: [UInt8], using random: inout SeededGenerator) -> [UInt8] {
        var bytes: [UInt8] = []
        var rest = body[...]
        let extensions = ["", "", ";a=b", ";name", ";q=\"v w\"", " ;a=1"]
        while !rest.isEmpty {
            let size = Int.random(in: 1...rest.count, using: &random)
            let hex = String(size, radix: 16, uppercase: Bool.random(using: &random))
            bytes += Array("\(hex)\(extensions.randomElement(using: &random)!)\r\n".utf8) + rest.prefix(size) + Array("\r\n".utf8)
            rest = rest.dropFirst(size)
        }
        bytes += Array("0\(extensions.randomElement(using: &random)!)\r\n".utf8)
        if Int.random(in: 0..<4, using: &random) == 0 { bytes += Array("X-Sum: 12\r\n".utf8) }
        bytes += Array("\r\n".utf8)
        return bytes
    }

    private static let interestingBytes: [UInt8] = [0x00, 0x01, 0x09, 0x0A, 0x0D, 0x20, 0x3A, 0x3B, 0x30, 0x61, 0x7F, 0x80, 0xFF, 0x22, 0x2C]
    private static let badFieldLines = [
        "Transfer-Encoding: gzip", "Transfer-Encoding: chunked", "Transfer-Encoding: gzip, chunked", "Content-Length: 3", "Content-Length: 0",
        "Content-Length: 1, 1", "Content-Length: +3", "Content-Length: 99999999999999999999", " folded", "\tfolded", "X-Bare: a\nX-B: c",
        "X-Ctl: a\u{1}b", "X-Del: a\u{7F}b", "No-Colon", ": no-name", "X Space: a", "X-A : b", "Connection: close, upgrade", "Upgrade: h2c",
    ]

    /// `bytes` with one or two changes.
    private static func mutated(_ bytes: [UInt8], using random: inout SeededGenerator) -> [UInt8] {
        var bytes = bytes
        for _ in 0..<Int.random(in: 1...2, using: &random) {
            let at = Int.random(in: 0..<max(1, bytes.count), using: &random)
            switch Int.random(in: 0..<5, using: &random) {
            case 0 where !bytes.isEmpty: bytes[at] = interestingBytes.randomElement(using: &random)!
            case 1: bytes.insert(interestingBytes.randomElement(using: &random)!, at: at)
            case 2 where !bytes.isEmpty: bytes.remove(at: at)
            case 3:
                // A field line after the status line.
                if let lineEnd = bytes.firstIndex(of: 0x0A) {
                    bytes.insert(contentsOf: Array((badFieldLines.randomElement(using: &random)! + "\r\n").utf8), at: lineEnd + 1)
                }
            default:
                // The status code changed.
                let code = ["101", "199", "204", "304", "600", "099", "20", "2000"].randomElement(using: &random)!
                if let space = bytes.firstIndex(of: 0x20), bytes.count > space + 4 {
                    bytes.replaceSubrange((space + 1)..<(space + 4), with: Array(code.utf8))
                }
            }
        }
        return bytes
    }
}

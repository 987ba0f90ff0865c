import HTTPTypes
import NIOCore

/// An upstream's answer head as its connection read it (`UpstreamAnswerParser`): what the pass-through needs to know
/// of it, and its field lines as they came, which go to the client with only the gateway's edits.
struct UpstreamAnswerHead {
    /// How the answer's body is delimited.
    enum Framing: Equatable {
        /// No body: the answer to a HEAD request, a 204 or a 304.
        case none
        case length(Int)
        case chunked
        /// No length was given: the body lasts until the connection closes.
        case untilClose
    }

    let status: HTTPResponse.Status
    /// The upstream keeps the connection open after this answer.
    let keepAlive: Bool
    let framing: Framing
    /// `Content-Type: text/event-stream`: a stream of Server-Sent Events.
    let isEventStream: Bool
    /// The field lines, each ending in CRLF, as the upstream sent them (checked, not changed).
    let fieldLines: ByteBuffer

    /// The head in `bytes` (its status line through the empty line ending it), the answer to a HEAD request when
    /// `requestIsHead`; nil for an interim (1xx) answer. Throws for anything that is not a head of HTTP/1.x's grammar.
    init?(parsing bytes: ByteBuffer, requestIsHead: Bool) throws(UpstreamAnswerError) {
        var found = FoundFields()
        let (code, reason, minorVersion, fieldsStart) = try bytes.withUnsafeReadableBytes { raw throws(UpstreamAnswerError) in
            let (code, reason, minorVersion, statusLineEnd) = try Self.statusLine(of: raw)
            try Self.scanFields(raw, from: statusLineEnd + 2, to: raw.count - 2, into: &found)
            return (code, reason, minorVersion, statusLineEnd + 2)
        }
        if code == 101 { throw .switchingProtocols }
        // Checked in interim answers too, as llhttp does: they are skipped, but a sender that frames them wrongly
        // cannot be trusted with the rest.
        if found.chunkedCodings > 0 {
            guard found.chunkedCodings == 1, !found.otherCodings, found.contentLength == nil else { throw .badTransferEncoding }
        } else if found.otherCodings {
            throw .badTransferEncoding
        }
        if code < 200 { return nil }
        if requestIsHead || code == 204 || code == 304 {
            framing = .none
        } else if found.chunkedCodings == 1 {
            framing = .chunked
        } else if let length = found.contentLength {
            framing = .length(length)
        } else {
            framing = .untilClose
        }
        status = HTTPResponse.Status(code: code, reasonPhrase: reason)
        keepAlive = framing != .untilClose && !found.close && (minorVersion == 1 || found.keepAlive)
        isEventStream = found.eventStream
        fieldLines = bytes.getSlice(at: bytes.readerIndex + fieldsStart, length: bytes.readableBytes - 2 - fieldsStart)!
    }

    /// Calls `body` with the name and the whole line (with its CRLF) of each field line, in order.
    func forEachFieldLine(_ body: (_ name: UnsafeRawBufferPointer, _ line: UnsafeRawBufferPointer) -> Void) {
        fieldLines.withUnsafeReadableBytes { raw in
            var lineStart = 0
            while lineStart < raw.count {
                var colon = lineStart
                while raw[colon] != UInt8(ascii: ":") { colon += 1 }
                var lineFeed = colon
                while raw[lineFeed] != UInt8(ascii: "\n") { lineFeed += 1 }
                body(UnsafeRawBufferPointer(rebasing: raw[lineStart..<colon]), UnsafeRawBufferPointer(rebasing: raw[lineStart...lineFeed]))
                lineStart = lineFeed + 1
            }
        }
    }

    // MARK: - Parsing

    /// What the field lines said of the answer's framing and kind.
    private struct FoundFields {
        var contentLength: Int?
        var chunkedCodings = 0
        var otherCodings = false
        var close = false
        var keepAlive = false
        var eventStream = false
    }

    /// `HTTP/1.x SP 3DIGIT [SP reason]` up to the first CRLF: its code, reason, minor version and where its CR is.
    private static func statusLine(of raw: UnsafeRawBufferPointer) throws(UpstreamAnswerError) -> (Int, String, Int, Int) {
        var end = 0
        while end + 1 < raw.count, raw[end] != UInt8(ascii: "\r") { end += 1 }
        guard end + 1 < raw.count, raw[end + 1] == UInt8(ascii: "\n"), end >= 12 else { throw .badStatusLine }
        guard raw.starts(with: "HTTP/1.".utf8) else { throw .badStatusLine }
        let minor = raw[7]
        guard minor == UInt8(ascii: "0") || minor == UInt8(ascii: "1"), raw[8] == UInt8(ascii: " ") else { throw .badStatusLine }
        var code = 0
        for index in 9..<12 {
            guard raw[index] >= UInt8(ascii: "0"), raw[index] <= UInt8(ascii: "9") else { throw .badStatusLine }
            code = code * 10 + Int(raw[index] - UInt8(ascii: "0"))
        }
        guard code >= 100, code <= 599 else { throw .badStatusLine }
        var reason = ""
        if end > 12 {
            guard raw[12] == UInt8(ascii: " ") else { throw .badStatusLine }
            let reasonBytes = raw[13..<end]
            guard reasonBytes.allSatisfy(isFieldValueByte) else { throw .badStatusLine }
            reason = String(decoding: reasonBytes, as: UTF8.self)
        }
        return (code, reason, Int(minor - UInt8(ascii: "0")), end)
    }

    /// Checks the field lines in `raw[start..<end]` (each ending in CRLF) and notes what they say of the framing.
    private static func scanFields(
        _ raw: UnsafeRawBufferPointer, from start: Int, to end: Int, into found: inout FoundFields
    ) throws(UpstreamAnswerError) {
        var lineStart = start
        while lineStart < end {
            var colon = lineStart
            while colon < end, isTokenByte(raw[colon]) { colon += 1 }
            guard colon > lineStart, colon < end, raw[colon] == UInt8(ascii: ":") else { throw .badFieldLine }
            var carriageReturn = colon + 1
            while carriageReturn < end, isFieldValueByte(raw[carriageReturn]) { carriageReturn += 1 }
            guard carriageReturn < end, raw[carriageReturn] == UInt8(ascii: "\r"), raw[carriageReturn + 1] == UInt8(ascii: "\n") else {
                throw .badFieldLine
            }
            try note(name: raw[lineStart..<colon], value: raw[(colon + 1)..<carriageReturn], in: &found)
            lineStart = carriageReturn + 2
        }
    }

    /// Notes what the field line `name: rawValue` says of the framing. The framing fields are read as llhttp
    /// (swift-nio's parser, and Node's) reads them, since they go on to clients that may read them so: one
    /// `Content-Length` line, and no tab after the leading whitespace of it or of `Transfer-Encoding`
    /// (docs/GATEWAY.md, "Where the upstream answer parser differs from swift-nio's").
    private static func note(name: Slice<UnsafeRawBufferPointer>, value rawValue: Slice<UnsafeRawBufferPointer>, in found: inout FoundFields)
        throws(UpstreamAnswerError)
    {
        let value = trimmed(rawValue)
        switch name.count {
        case 14 where ASCIICase.equals(name, lowercased: "content-length"):
            guard found.contentLength == nil, !value.isEmpty, value.count <= 18, !Self.hasTab(after: value.startIndex, in: rawValue),
                value.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") })
            else {
                throw .badContentLength
            }
            found.contentLength = value.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
        case 17 where ASCIICase.equals(name, lowercased: "transfer-encoding"):
            // llhttp reads `chunked` with a tab after it as another coding, which is refused below.
            if Self.hasTab(after: value.startIndex, in: rawValue) { found.otherCodings = true }
            for coding in value.split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false) {
                let coding = trimmed(coding)
                // An empty element (`chunked,`): llhttp reads the body until the close, so it is refused with others.
                if coding.isEmpty {
                    found.otherCodings = true
                    continue
                }
                if ASCIICase.equals(coding, lowercased: "chunked") { found.chunkedCodings += 1 } else { found.otherCodings = true }
            }
        case 10 where ASCIICase.equals(name, lowercased: "connection"):
            for option in value.split(separator: UInt8(ascii: ",")) {
                let option = trimmed(option)
                if ASCIICase.equals(option, lowercased: "close") { found.close = true }
                if ASCIICase.equals(option, lowercased: "keep-alive") { found.keepAlive = true }
            }
        case 12 where ASCIICase.equals(name, lowercased: "content-type"):
            let eventStream = "text/event-stream".utf8
            found.eventStream = value.count >= eventStream.count && ASCIICase.equals(value.prefix(eventStream.count), lowercased: "text/event-stream")
        default:
            break
        }
    }

    /// Whether `rawValue` holds a tab from `start` on.
    private static func hasTab(after start: Int, in rawValue: Slice<UnsafeRawBufferPointer>) -> Bool {
        rawValue[start...].contains(UInt8(ascii: "\t"))
    }

    /// `value` without the spaces and tabs around it.
    private static func trimmed(_ value: Slice<UnsafeRawBufferPointer>) -> Slice<UnsafeRawBufferPointer> {
        var start = value.startIndex
        var end = value.endIndex
        while start < end, value[start] == UInt8(ascii: " ") || value[start] == UInt8(ascii: "\t") { start += 1 }
        while end > start, value[end - 1] == UInt8(ascii: " ") || value[end - 1] == UInt8(ascii: "\t") { end -= 1 }
        return value[start..<end]
    }

    /// A byte of a token (RFC 9110 section 5.6.2): a field name.
    static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
        case UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"),
            UInt8(ascii: "&"), UInt8(ascii: "'"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "^"), UInt8(ascii: "`"), UInt8(ascii: "|"),
            UInt8(ascii: "~"):
            true
        default: false
        }
    }

    /// A byte a field value, a reason phrase or a chunk extension may hold: visible characters, space, tab and
    /// obs-text; no other control character (so no CR, LF or NUL).
    static func isFieldValueByte(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "\t") || (byte >= 0x20 && byte != 0x7F)
    }
}

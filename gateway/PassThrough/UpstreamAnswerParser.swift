import HTTPTypes
import NIOCore

/// Reads an upstream's HTTP/1.1 answers from its connection's bytes, for the pass-through, which passes them on as
/// they came: the head's field lines are copied to the client with only the gateway's edits (`UpstreamAnswerHeaders`),
/// and the body's bytes go on as read, a chunked body with its chunk framing (its client reads it chunked too). So the
/// parser checks what passing bytes on needs: a status line and field lines of HTTP/1.x's grammar (no control
/// characters, no obsolete line folding, no bare LF), one body length (`Content-Length`, or `Transfer-Encoding: chunked`
/// and nothing else; both at once, or lengths that disagree, are refused), and the chunk framing to the body's end.
/// Anything else is an error: the exchange fails with 502 when no answer was passed on yet, and the connection closes.
/// An interim answer (1xx but 101) is skipped; answers to HEAD, 204 and 304 have no body; an answer without a length
/// lasts until the connection closes (and the client's closes after it).
struct UpstreamAnswerParser {
    /// What the parser found next.
    enum Event {
        case head(UpstreamAnswerHead)
        /// Body bytes as the upstream sent them, with their chunk framing when chunked, except in a stream of events
        /// (`UpstreamAnswerHead.isEventStream`) and when asked (`expectAnswer`), where the chunks' data comes without
        /// it (`AnswerChunks`).
        case body(ByteBuffer)
        case end
    }

    /// The longest answer head taken, and the longest chunk-size or trailer line.
    static let maxHeadBytes = 80 * 1024
    static let maxChunkLineBytes = 4 * 1024

    private enum State {
        /// No request is waiting for its answer: bytes now are an error.
        case idle
        /// Reading a head; `scanned` bytes of `pending` (a head that came in several reads) have no end in them.
        case head(pending: ByteBuffer?, scanned: Int)
        case length(remaining: Int)
        case chunked(ChunkedBodyScanner)
        case untilClose
        /// The body is read whole: the next call reports the end.
        case ending
    }

    private var state = State.idle
    private var requestIsHead = false
    private var decodesChunks = false

    /// Expects the answer to a request, which was a HEAD request when `requestIsHead` (its answer has no body); a
    /// chunked answer comes as its chunks' data when `decodesChunks` (for an HTTP/1.0 client), as a stream of events
    /// always does.
    mutating func expectAnswer(requestIsHead: Bool, decodesChunks: Bool = false) {
        state = .head(pending: nil, scanned: 0)
        self.requestIsHead = requestIsHead
        self.decodesChunks = decodesChunks
    }

    /// No answer is being read or expected.
    var isIdle: Bool {
        if case .idle = state { return true }
        return false
    }

    /// The next event of the bytes read (taking the bytes it reports from `buffer`), or nil when `buffer` holds no
    /// more of one. Throws on bytes that are not an answer, or that came when none was expected.
    mutating func next(from buffer: inout ByteBuffer) throws(UpstreamAnswerError) -> Event? {
        switch state {
        case .idle:
            guard buffer.readableBytes == 0 else { throw .unexpectedBytes }
            return nil
        case .head(let pending, let scanned):
            return try nextHead(from: &buffer, pending: pending, scanned: scanned)
        case .length(let remaining):
            guard buffer.readableBytes > 0 else { return nil }
            let taken = min(remaining, buffer.readableBytes)
            state = taken == remaining ? .ending : .length(remaining: remaining - taken)
            return .body(buffer.readSlice(length: taken)!)
        case .chunked(var chunked) where chunked.decodes:
            while buffer.readableBytes > 0 {
                if let remaining = chunked.dataRemaining {
                    let taken = min(remaining, buffer.readableBytes)
                    chunked.tookData(taken)
                    state = .chunked(chunked)
                    return .body(buffer.readSlice(length: taken)!)
                }
                let (taken, ended) = try buffer.withUnsafeReadableBytes { bytes throws(UpstreamAnswerError) in try chunked.scan(bytes) }
                buffer.moveReaderIndex(forwardBy: taken)  // chunk framing: read off
                if ended {
                    state = .idle
                    return .end
                }
            }
            state = .chunked(chunked)
            return nil
        case .chunked(var chunked):
            guard buffer.readableBytes > 0 else { return nil }
            let (taken, ended) = try buffer.withUnsafeReadableBytes { bytes throws(UpstreamAnswerError) in try chunked.scan(bytes) }
            state = ended ? .ending : .chunked(chunked)
            return .body(buffer.readSlice(length: taken)!)
        case .untilClose:
            guard buffer.readableBytes > 0 else { return nil }
            return .body(buffer.readSlice(length: buffer.readableBytes)!)
        case .ending:
            state = .idle
            return .end
        }
    }

    /// The connection closed: the end of an answer that lasts until then; nil when no answer had begun (nothing of it
    /// came); an error in the middle of any other.
    mutating func inputClosed() throws(UpstreamAnswerError) -> Event? {
        switch state {
        case .idle, .head(pending: nil, _):
            state = .idle
            return nil
        case .untilClose, .ending:
            state = .idle
            return .end
        default:
            state = .idle
            throw .closedInAnswer
        }
    }

    private mutating func nextHead(from buffer: inout ByteBuffer, pending: ByteBuffer?, scanned: Int) throws(UpstreamAnswerError) -> Event? {
        var bytes: ByteBuffer
        let accumulating = pending != nil
        if var pending {
            pending.writeImmutableBuffer(buffer)
            buffer.moveReaderIndex(to: buffer.writerIndex)
            bytes = pending
        } else {
            bytes = buffer
        }
        guard let headLength = Self.headLength(in: bytes, from: scanned) else {
            guard bytes.readableBytes <= Self.maxHeadBytes else { throw .headTooLarge }
            let scannedNow = max(0, bytes.readableBytes - 3)
            if accumulating {
                state = .head(pending: bytes, scanned: scannedNow)
            } else if bytes.readableBytes > 0 {
                // Kept until the rest comes: copied, so the read's whole buffer is not held for it.
                var kept = ByteBufferAllocator().buffer(capacity: max(bytes.readableBytes, 1024))
                kept.writeImmutableBuffer(bytes)
                buffer.moveReaderIndex(to: buffer.writerIndex)
                state = .head(pending: kept, scanned: scannedNow)
            }
            return nil
        }
        guard headLength <= Self.maxHeadBytes else { throw .headTooLarge }
        let headBytes = bytes.readSlice(length: headLength)!
        if accumulating {
            buffer = bytes  // what followed the head in the kept bytes is read next
        } else {
            buffer.moveReaderIndex(forwardBy: headLength)
        }
        guard let head = try UpstreamAnswerHead(parsing: headBytes, requestIsHead: requestIsHead) else {
            // An interim answer: the final one follows.
            state = .head(pending: nil, scanned: 0)
            return try nextHead(from: &buffer, pending: nil, scanned: 0)
        }
        switch head.framing {
        case .none, .length(0): state = .ending
        case .length(let length): state = .length(remaining: length)
        case .chunked: state = .chunked(ChunkedBodyScanner(decodes: decodesChunks || head.isEventStream))
        case .untilClose: state = .untilClose
        }
        return .head(head)
    }

    /// The length of the head at the start of `bytes` (through the empty line ending it), or nil when its end has not
    /// come yet; the first `scanned` bytes are known to hold no end.
    private static func headLength(in bytes: ByteBuffer, from scanned: Int) -> Int? {
        bytes.withUnsafeReadableBytes { raw -> Int? in
            guard raw.count >= 4 else { return nil }
            var index = scanned
            while index + 3 < raw.count {
                if raw[index + 3] != UInt8(ascii: "\n") {
                    index += 1
                    continue
                }
                if raw[index] == UInt8(ascii: "\r"), raw[index + 1] == UInt8(ascii: "\n"), raw[index + 2] == UInt8(ascii: "\r") {
                    return index + 4
                }
                index += 1
            }
            return nil
        }
    }
}

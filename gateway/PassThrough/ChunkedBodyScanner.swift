/// How far an upstream answer's chunked body has been read (`UpstreamAnswerParser`): its chunk framing checked byte by
/// byte (sizes in hex, extensions, each chunk's CRLF, the trailer section) to the body's end.
struct ChunkedBodyScanner {
    private enum Position {
        /// In a chunk-size line: the size so far and how many hex digits it had, then (`inExtension`) a chunk extension.
        case size(value: Int, digits: Int, inExtension: Bool)
        /// The size line's CR was read; its LF comes next.
        case sizeLineFeed(size: Int)
        case data(remaining: Int)
        /// After a chunk's data: its CR, then its LF.
        case dataCarriageReturn, dataLineFeed
        /// In the trailer section, in a line of `length` bytes so far (the section ends with an empty line).
        case trailer(length: Int), trailerLineFeed(lineLength: Int)
    }

    private var position = Position.size(value: 0, digits: 0, inExtension: false)
    /// Bytes of the current size line, and of the trailer section, for their limits.
    private var lineBytes = 0
    /// The chunks' data is reported apart from their framing: `scan` stops where data begins.
    let decodes: Bool

    init(decodes: Bool) {
        self.decodes = decodes
    }

    /// In a chunk's data: how much of it is still to come.
    var dataRemaining: Int? {
        if case .data(let remaining) = position { return remaining }
        return nil
    }

    /// `count` bytes of the chunk's data were taken (at most `dataRemaining`).
    mutating func tookData(_ count: Int) {
        guard case .data(let remaining) = position else { return }
        position = count == remaining ? .dataCarriageReturn : .data(remaining: remaining - count)
    }

    /// Reads `bytes`: how many belong to the body, and whether its end is among them; when it `decodes`, only up to
    /// where a chunk's data begins.
    mutating func scan(_ bytes: UnsafeRawBufferPointer) throws(UpstreamAnswerError) -> (taken: Int, ended: Bool) {
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            switch position {
            case .size(let value, let digits, let inExtension):
                lineBytes += 1
                guard lineBytes <= UpstreamAnswerParser.maxChunkLineBytes else { throw .badChunk }
                if byte == UInt8(ascii: "\r") {
                    guard digits > 0 else { throw .badChunk }
                    position = .sizeLineFeed(size: value)
                } else if inExtension {
                    guard UpstreamAnswerHead.isFieldValueByte(byte) else { throw .badChunk }
                } else if let digit = Self.hexValue(byte) {
                    guard digits < 15 else { throw .badChunk }  // at most 2^60 - 1: no overflow
                    position = .size(value: value << 4 | digit, digits: digits + 1, inExtension: false)
                } else if byte == UInt8(ascii: ";") || byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") {
                    guard digits > 0 else { throw .badChunk }
                    position = .size(value: value, digits: digits, inExtension: true)
                } else {
                    throw .badChunk
                }
            case .sizeLineFeed(let size):
                guard byte == UInt8(ascii: "\n") else { throw .badChunk }
                lineBytes = 0
                position = size == 0 ? .trailer(length: 0) : .data(remaining: size)
                if decodes, size > 0 { return (index + 1, false) }
            case .data(let remaining):
                let taken = min(remaining, bytes.count - index)
                index += taken
                position = taken == remaining ? .dataCarriageReturn : .data(remaining: remaining - taken)
                continue
            case .dataCarriageReturn:
                guard byte == UInt8(ascii: "\r") else { throw .badChunk }
                position = .dataLineFeed
            case .dataLineFeed:
                guard byte == UInt8(ascii: "\n") else { throw .badChunk }
                position = .size(value: 0, digits: 0, inExtension: false)
            case .trailer(let length):
                lineBytes += 1
                guard lineBytes <= UpstreamAnswerParser.maxHeadBytes else { throw .badChunk }
                if byte == UInt8(ascii: "\r") {
                    position = .trailerLineFeed(lineLength: length)
                } else {
                    guard UpstreamAnswerHead.isFieldValueByte(byte) else { throw .badChunk }
                    position = .trailer(length: length + 1)
                }
            case .trailerLineFeed(let lineLength):
                guard byte == UInt8(ascii: "\n") else { throw .badChunk }
                if lineLength == 0 { return (index + 1, true) }
                position = .trailer(length: 0)
            }
            index += 1
        }
        return (index, false)
    }

    private static func hexValue(_ byte: UInt8) -> Int? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): Int(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): Int(byte - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): Int(byte - UInt8(ascii: "A") + 10)
        default: nil
        }
    }
}

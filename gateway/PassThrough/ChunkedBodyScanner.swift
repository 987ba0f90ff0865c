/// How far an upstream answer's chunked body has been read (`UpstreamAnswerParser`): its chunk framing checked byte by
/// byte (sizes in hex, extensions, each chunk's CRLF, the trailer section) to the body's end.
struct ChunkedBodyScanner {
    private enum Position {
        /// In a chunk-size line: the size so far and how many hex digits it had, then (`ext`) its chunk extensions.
        case size(value: Int, digits: Int, ext: Extension)
        /// The size line's CR was read; its LF comes next.
        case sizeLineFeed(size: Int)
        case data(remaining: Int)
        /// After a chunk's data: its CR, then its LF.
        case dataCarriageReturn, dataLineFeed
        /// In the trailer section, in a line of `length` bytes so far (the section ends with an empty line), before
        /// (`inValue` false: a field name's token bytes) or after its colon.
        case trailer(length: Int, inValue: Bool), trailerLineFeed(lineLength: Int)
    }

    /// Where in a chunk-size line's extensions (`;name`, `;name=token`, `;name="quoted"`, RFC 9112 section 7.1.1,
    /// without whitespace, as llhttp reads them: the framing goes on to the client as it came).
    private enum Extension {
        case none, nameStart, name, valueStart, token, quoted, quotedEscape, afterQuoted
    }

    private var position = Position.size(value: 0, digits: 0, ext: .none)
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
            case .size(let value, let digits, let ext):
                lineBytes += 1
                guard lineBytes <= UpstreamAnswerParser.maxChunkLineBytes else { throw .badChunk }
                if byte == UInt8(ascii: "\r") {
                    guard digits > 0, ext == .none || ext == .name || ext == .valueStart || ext == .token || ext == .afterQuoted else {
                        throw .badChunk
                    }
                    position = .sizeLineFeed(size: value)
                } else if ext == .none, let digit = Self.hexValue(byte) {
                    guard digits < 15 else { throw .badChunk }  // at most 2^60 - 1: no overflow
                    position = .size(value: value << 4 | digit, digits: digits + 1, ext: .none)
                } else {
                    guard digits > 0, let next = Self.chunkExtension(after: ext, reading: byte) else { throw .badChunk }
                    position = .size(value: value, digits: digits, ext: next)
                }
            case .sizeLineFeed(let size):
                guard byte == UInt8(ascii: "\n") else { throw .badChunk }
                lineBytes = 0
                position = size == 0 ? .trailer(length: 0, inValue: false) : .data(remaining: size)
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
                position = .size(value: 0, digits: 0, ext: .none)
            case .trailer(let length, let inValue):
                // Each trailer line a field line (`name: value`), as in a head.
                lineBytes += 1
                guard lineBytes <= UpstreamAnswerParser.maxHeadBytes else { throw .badChunk }
                if byte == UInt8(ascii: "\r") {
                    guard length == 0 || inValue else { throw .badChunk }
                    position = .trailerLineFeed(lineLength: length)
                } else if inValue {
                    guard UpstreamAnswerHead.isFieldValueByte(byte) else { throw .badChunk }
                    position = .trailer(length: length + 1, inValue: true)
                } else if byte == UInt8(ascii: ":") {
                    guard length > 0 else { throw .badChunk }
                    position = .trailer(length: length + 1, inValue: true)
                } else {
                    guard UpstreamAnswerHead.isTokenByte(byte) else { throw .badChunk }
                    position = .trailer(length: length + 1, inValue: false)
                }
            case .trailerLineFeed(let lineLength):
                guard byte == UInt8(ascii: "\n") else { throw .badChunk }
                if lineLength == 0 { return (index + 1, true) }
                position = .trailer(length: 0, inValue: false)
            }
            index += 1
        }
        return (index, false)
    }

    /// Where a chunk extension is after `byte`, read at `ext`; nil when the byte breaks its grammar.
    private static func chunkExtension(after ext: Extension, reading byte: UInt8) -> Extension? {
        let semicolon = UInt8(ascii: ";")
        switch ext {
        case .none, .afterQuoted: return byte == semicolon ? .nameStart : nil
        case .nameStart:
            // llhttp takes an empty name (`;;`, `;=v`): so does this.
            if byte == semicolon { return .nameStart }
            if byte == UInt8(ascii: "=") { return .valueStart }
            return UpstreamAnswerHead.isTokenByte(byte) ? .name : nil
        case .name:
            if byte == semicolon { return .nameStart }
            if byte == UInt8(ascii: "=") { return .valueStart }
            return UpstreamAnswerHead.isTokenByte(byte) ? .name : nil
        case .valueStart:
            // An empty value (`;a=`, `;a=;b`), as llhttp takes it.
            if byte == semicolon { return .nameStart }
            if byte == UInt8(ascii: "\"") { return .quoted }
            return UpstreamAnswerHead.isTokenByte(byte) ? .token : nil
        case .token:
            if byte == semicolon { return .nameStart }
            // A quote after a token begins a quoted part, as llhttp reads it (`;q=0"v"`).
            if byte == UInt8(ascii: "\"") { return .quoted }
            return UpstreamAnswerHead.isTokenByte(byte) ? .token : nil
        case .quoted:
            if byte == UInt8(ascii: "\"") { return .afterQuoted }
            if byte == UInt8(ascii: "\\") { return .quotedEscape }
            // DEL too, as llhttp takes it in a quoted value.
            return UpstreamAnswerHead.isFieldValueByte(byte) || byte == 0x7F ? .quoted : nil
        case .quotedEscape:
            return UpstreamAnswerHead.isFieldValueByte(byte) ? .quoted : nil
        }
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

import NIOCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Checks a streamed `multipart/form-data` body before MultipartKit's parser reads it: MultipartKit 4.7.1 traps
/// (index out of range, the service exits) on a byte of 0x80 or above in a part's header name, which any client can
/// send. The guard follows the body as the parser does and refuses such a byte before the parser sees it.
///
/// It finds header blocks after every `--<boundary>` in the body. That includes every place the parser
/// starts a part's headers, which follows `\r\n--<boundary>`, or `--<boundary>` at the start, and maybe more. In a
/// header block it reads lines up to the empty one and checks each header name up to its colon. Reading more of the
/// body as headers than the parser does can only refuse an odd body that has the boundary inside a part. It never lets
/// the parser see a header it did not check.
struct MultipartHeaderGuard {
    private enum Position {
        /// Looking for `--<boundary>`: `matched` bytes of it so far.
        case seeking(matched: Int)
        /// Just after `--<boundary>`: a CR starts the headers' line break, anything else is not a part's start.
        case afterBoundary
        /// After the CR that follows the boundary, or that ends a header line.
        case lineFeed
        /// In a header name; `empty` until its first byte.
        case name(empty: Bool)
        /// In a header value, up to its CR.
        case value
    }

    private let pattern: [UInt8]
    /// For each prefix of `pattern`, the length of its longest proper prefix that is also its suffix (KMP), so a
    /// boundary that repeats its own start is still found.
    private let fallback: [Int]
    private var position = Position.seeking(matched: 0)

    init(boundary: String) {
        pattern = Array("--\(boundary)".utf8)
        var fallback = [Int](repeating: 0, count: pattern.count)
        var length = 0
        for index in pattern.indices.dropFirst() {
            while length > 0 && pattern[index] != pattern[length] { length = fallback[length - 1] }
            if pattern[index] == pattern[length] { length += 1 }
            fallback[index] = length
        }
        self.fallback = fallback
    }

    /// Follows `chunk`, the body's next bytes; false when a header name in it has a byte MultipartKit cannot read.
    mutating func accepts(_ chunk: ByteBuffer) -> Bool {
        chunk.withUnsafeReadableBytes { accepts($0) }
    }

    /// Follows `bytes`, the body's next bytes, as `accepts(_:)` of a buffer does.
    mutating func accepts(_ bytes: some Collection<UInt8>) -> Bool {
        Array(bytes).withUnsafeBytes { accepts($0) }
    }

    /// Reads the bytes through a raw pointer, and skips to the next `-` with `memchr` while no part of the boundary is
    /// matched: a photo's bytes cost one pass of `memchr` and not a step of this state machine each, which in a debug
    /// build made a 10 MB upload take seconds.
    private mutating func accepts(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard let base = bytes.baseAddress else { return true }
        var index = 0
        while index < bytes.count {
            if case .seeking(matched: 0) = position {
                guard let found = memchr(base + index, Int32(pattern[0]), bytes.count - index) else { return true }
                index = base.distance(to: UnsafeRawPointer(found))
            }
            let byte = bytes[index]
            index += 1
            switch position {
            case .seeking(var matched):
                while matched > 0 && byte != pattern[matched] { matched = fallback[matched - 1] }
                if byte == pattern[matched] { matched += 1 }
                position = matched == pattern.count ? .afterBoundary : .seeking(matched: matched)
            case .afterBoundary:
                position = byte == .carriageReturn ? .lineFeed : .seeking(matched: 0)
            case .lineFeed:
                position = byte == .lineFeed ? .name(empty: true) : .seeking(matched: 0)
            case .name(let empty):
                if byte >= 0x80 { return false }
                if byte == .carriageReturn && empty {
                    position = .seeking(matched: 0)  // the empty line: the part's body follows
                } else {
                    position = byte == .colon ? .value : .name(empty: false)
                }
            case .value:
                if byte == .carriageReturn { position = .lineFeed }
            }
        }
        return true
    }
}

extension UInt8 {
    fileprivate static let carriageReturn: UInt8 = 13
    fileprivate static let lineFeed: UInt8 = 10
    fileprivate static let colon: UInt8 = 58
}

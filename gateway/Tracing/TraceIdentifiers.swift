/// A W3C trace id: 16 bytes, never all zero.
struct TraceID: Hashable, Sendable {
    var high: UInt64
    var low: UInt64

    /// The 16 bytes, most significant first (as `traceparent` and OTLP carry them).
    var bytes: [UInt8] { HexDigits.bytes(of: high) + HexDigits.bytes(of: low) }
    /// 32 lower-case hex digits.
    var hex: String { HexDigits.string(high) + HexDigits.string(low) }
    var isValid: Bool { high != 0 || low != 0 }
}

/// A W3C span (parent) id: 8 bytes, never all zero.
struct SpanID: Hashable, Sendable {
    var value: UInt64

    var bytes: [UInt8] { HexDigits.bytes(of: value) }
    /// 16 lower-case hex digits.
    var hex: String { HexDigits.string(value) }
    var isValid: Bool { value != 0 }
}

/// The `traceparent` header of W3C Trace Context (https://www.w3.org/TR/trace-context/): which trace a request
/// belongs to, the id of the caller's span, and whether the caller sampled it.
struct TraceParent: Equatable, Sendable {
    var traceId: TraceID
    var parentId: SpanID
    /// The trace flags; bit 0 is `sampled`.
    var flags: UInt8

    var sampled: Bool { flags & 1 == 1 }

    /// The header of a span: version 00, the span's trace and id, sampled or not.
    static func header(traceId: TraceID, spanId: SpanID, sampled: Bool) -> String {
        String(unsafeUninitializedCapacity: 55) { buffer in
            let dash = UInt8(ascii: "-")
            let zero = UInt8(ascii: "0")
            buffer[0] = zero
            buffer[1] = zero
            buffer[2] = dash
            HexDigits.write(traceId.high, into: buffer, at: 3)
            HexDigits.write(traceId.low, into: buffer, at: 19)
            buffer[35] = dash
            HexDigits.write(spanId.value, into: buffer, at: 36)
            buffer[52] = dash
            buffer[53] = zero
            buffer[54] = sampled ? UInt8(ascii: "1") : zero
            return 55
        }
    }

    /// Reads a header as the specification's parsing rules say: `version-traceid-parentid-flags` in lower-case hex,
    /// version `ff` refused, neither id all zeros; a version above 00 may carry more after a `-`, version 00 nothing.
    /// Nil for anything else (the request then starts a new trace).
    init?(header: String) {
        let bytes = Array(header.utf8)
        guard bytes.count >= 55, bytes[2] == UInt8(ascii: "-"), bytes[35] == UInt8(ascii: "-"), bytes[52] == UInt8(ascii: "-"),
            let version = HexDigits.value(bytes[0..<2]), version != 0xff,
            bytes.count == 55 || (version != 0 && bytes[55] == UInt8(ascii: "-")),
            let high = HexDigits.value(bytes[3..<19]), let low = HexDigits.value(bytes[19..<35]),
            let parent = HexDigits.value(bytes[36..<52]), let flags = HexDigits.value(bytes[53..<55])
        else { return nil }
        let traceId = TraceID(high: high, low: low)
        let parentId = SpanID(value: parent)
        guard traceId.isValid, parentId.isValid else { return nil }
        self.init(traceId: traceId, parentId: parentId, flags: UInt8(flags))
    }

    init(traceId: TraceID, parentId: SpanID, flags: UInt8) {
        self.traceId = traceId
        self.parentId = parentId
        self.flags = flags
    }
}

/// Random trace and span ids from a xoshiro256** generator seeded once from the system's (one `getrandom` per
/// generator, not one per id). Not for secrets: ids only need to be unique.
struct TraceIdentifierGenerator {
    private var state: (UInt64, UInt64, UInt64, UInt64)

    init() {
        var system = SystemRandomNumberGenerator()
        var seeded = (system.next() as UInt64, system.next() as UInt64, system.next() as UInt64, system.next() as UInt64)
        if seeded == (0, 0, 0, 0) { seeded.0 = 1 }
        state = seeded
    }

    /// A generator seeded with `seed`, for tests.
    init(seed: (UInt64, UInt64, UInt64, UInt64)) {
        state = seed == (0, 0, 0, 0) ? (1, 0, 0, 0) : seed
    }

    mutating func traceId() -> TraceID {
        while true {
            let id = TraceID(high: next(), low: next())
            if id.isValid { return id }
        }
    }

    mutating func spanId() -> SpanID {
        while true {
            let id = SpanID(value: next())
            if id.isValid { return id }
        }
    }

    /// xoshiro256** (Blackman and Vigna).
    private mutating func next() -> UInt64 {
        let result = rotate(state.1 &* 5, 7) &* 9
        let shifted = state.1 << 17
        state.2 ^= state.0
        state.3 ^= state.1
        state.1 ^= state.2
        state.0 ^= state.3
        state.2 ^= shifted
        state.3 = rotate(state.3, 45)
        return result
    }

    private func rotate(_ value: UInt64, _ count: UInt64) -> UInt64 { (value << count) | (value >> (64 - count)) }
}

/// Lower-case hex of ids, and their reading.
enum HexDigits {
    private static let digits = Array("0123456789abcdef".utf8)

    static func string(_ value: UInt64) -> String {
        String(unsafeUninitializedCapacity: 16) { buffer in
            write(value, into: buffer, at: 0)
            return 16
        }
    }

    /// Writes the 16 digits of `value` at `offset`.
    static func write(_ value: UInt64, into buffer: UnsafeMutableBufferPointer<UInt8>, at offset: Int) {
        for index in 0..<16 { buffer[offset + index] = digits[Int((value >> UInt64(60 - 4 * index)) & 0xf)] }
    }

    static func bytes(of value: UInt64) -> [UInt8] {
        (0..<8).map { UInt8(truncatingIfNeeded: value >> UInt64(56 - 8 * $0)) }
    }

    /// The value of up to 16 lower-case hex digits; nil for any other byte.
    static func value(_ bytes: ArraySlice<UInt8>) -> UInt64? {
        var value: UInt64 = 0
        for byte in bytes {
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            default: return nil
            }
            value = value << 4 | UInt64(digit)
        }
        return value
    }
}

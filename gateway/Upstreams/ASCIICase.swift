/// Header names and schemes compared without regard to ASCII case, byte by byte, without a lower-cased copy (the
/// copies showed in the pass-through's profile).
enum ASCIICase {
    /// `bytes` spell `lowercased` (lower-case ASCII) in any case. Setting bit 0x20 lower-cases a letter, and only a
    /// letter's two cases map onto one; a header name or scheme holds no byte that maps onto another otherwise.
    static func equals(_ bytes: some Collection<UInt8>, lowercased: String) -> Bool {
        var lowercased = lowercased
        return lowercased.withUTF8 { equals(bytes, lowercasedBytes: $0) }
    }

    /// `bytes` spell `lowercased` (lower-case ASCII bytes) in any case, as above.
    static func equals(_ bytes: some Collection<UInt8>, lowercasedBytes lowercased: some RandomAccessCollection<UInt8>) -> Bool {
        guard bytes.count == lowercased.count else { return false }
        var expected = lowercased.startIndex
        for byte in bytes {
            guard byte | 0x20 == lowercased[expected] else { return false }
            lowercased.formIndex(after: &expected)
        }
        return true
    }
}

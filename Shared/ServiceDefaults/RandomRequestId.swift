/// New request ids: random (version 4) UUIDs in lower-case text, as `UUID().lowercasedString` makes them, at a
/// fraction of the cost (Foundation's opens `/dev/urandom` and formats with `sprintf` for every id, which showed in the
/// profile of the gateway's pass-through, where nearly every request needs one).
public enum RandomRequestId {
    /// A new id such as `3f2b8c1e-9a4d-4e7f-b5c6-0d1e2f3a4b5c`.
    public static func make() -> String {
        var generator = SystemRandomNumberGenerator()
        let high = (generator.next() & ~UInt64(0xF000)) | 0x4000  // version 4
        let low = (generator.next() & ~(UInt64(0x3) << 62)) | (UInt64(0x2) << 62)  // variant 10
        return String(unsafeUninitializedCapacity: 36) { text in
            var index = 0
            for value in [high, low] {
                for nibble in 0..<16 {
                    if index == 8 || index == 13 || index == 18 || index == 23 {
                        text[index] = UInt8(ascii: "-")
                        index += 1
                    }
                    let digit = UInt8((value >> UInt64(60 - nibble * 4)) & 0xF)
                    text[index] = digit < 10 ? UInt8(ascii: "0") + digit : UInt8(ascii: "a") + digit - 10
                    index += 1
                }
            }
            return index
        }
    }
}

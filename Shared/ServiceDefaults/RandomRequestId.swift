import Glibc
import Synchronization

/// New request ids: random (version 4) UUIDs in lower-case text, as `UUID().lowercasedString` makes them, at a
/// fraction of the cost. Foundation's opens `/dev/urandom` and formats with `sprintf` for every id, and drawing each
/// id's 16 bytes from the system (`SystemRandomNumberGenerator`: one `getrandom` call per 8 bytes) still made two
/// system calls per request in the profile of the gateway's pass-through, where nearly every request needs an id.
/// The bytes come from the kernel's generator as before, fetched for 256 ids at a time (`RandomBytePool`).
public enum RandomRequestId {
    private static let pool = Mutex(RandomBytePool())

    /// A new id such as `3f2b8c1e-9a4d-4e7f-b5c6-0d1e2f3a4b5c`.
    public static func make() -> String {
        let (first, second) = pool.withLock { $0.next() }
        let high = (first & ~UInt64(0xF000)) | 0x4000  // version 4
        let low = (second & ~(UInt64(0x3) << 62)) | (UInt64(0x2) << 62)  // variant 10
        return String(unsafeUninitializedCapacity: 36) { text in
            var index = 0
            for nibble in 0..<32 {
                if index == 8 || index == 13 || index == 18 || index == 23 {
                    text[index] = UInt8(ascii: "-")
                    index += 1
                }
                let value = nibble < 16 ? high : low
                let digit = UInt8((value >> UInt64(60 - (nibble % 16) * 4)) & 0xF)
                text[index] = digit < 10 ? UInt8(ascii: "0") + digit : UInt8(ascii: "a") + digit - 10
                index += 1
            }
            return index
        }
    }
}

/// Random words from the kernel's generator, fetched 4 KiB at a time and handed out once each.
struct RandomBytePool {
    private var words = [UInt64](repeating: 0, count: 512)
    private var position = 512

    /// The next two unused words, refilling the pool when it is spent.
    mutating func next() -> (UInt64, UInt64) {
        if position + 2 > words.count { refill() }
        defer { position += 2 }
        return (words[position], words[position + 1])
    }

    /// One `arc4random_buf` call: glibc's takes the bytes from the kernel (`getrandom`), as the standard library's
    /// generator does.
    private mutating func refill() {
        words.withUnsafeMutableBytes { arc4random_buf($0.baseAddress!, $0.count) }
        position = 0
    }
}

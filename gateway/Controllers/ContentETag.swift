/// A strong validator of fixed bytes the gateway serves (the API document, the API explorer's files), for
/// `If-None-Match`: their length and FNV-1a hash, quoted.
enum ContentETag {
    static func of(_ bytes: [UInt8]) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return "\"\(bytes.count)-\(String(hash, radix: 16))\""
    }
}

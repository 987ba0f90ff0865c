/// Reads what the start of a PNG file says: the 8-byte signature and the width and height of its `IHDR` chunk.
enum PNGHeader {
    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// Width and height when `bytes` starts like a PNG (signature, then `IHDR` first); nil otherwise.
    static func dimensions(of bytes: [UInt8]) -> (width: Int, height: Int)? {
        guard bytes.count >= 24, Array(bytes[0..<8]) == signature, Array(bytes[12..<16]) == Array("IHDR".utf8) else { return nil }
        func number(at offset: Int) -> Int { bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) } }
        return (number(at: 16), number(at: 20))
    }
}

import NIOCore

/// The CRC-32 of zip (and gzip, PNG): polynomial 0xEDB88320, reflected, computed as the bytes stream by.
struct CRC32: Sendable {
    private var remainder: UInt32 = 0xFFFF_FFFF

    /// The checksum of the bytes so far.
    var value: UInt32 { remainder ^ 0xFFFF_FFFF }

    mutating func update(_ bytes: UnsafeRawBufferPointer) {
        var crc = remainder
        for byte in bytes {
            crc = Self.table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8)
        }
        remainder = crc
    }

    mutating func update(_ buffer: ByteBuffer) {
        buffer.withUnsafeReadableBytes { update($0) }
    }

    mutating func update(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { update($0) }
    }

    /// The remainders of each byte value.
    private static let table: [UInt32] = (0..<256).map { index in
        var value = UInt32(index)
        for _ in 0..<8 { value = value & 1 == 1 ? 0xEDB8_8320 ^ (value >> 1) : value >> 1 }
        return value
    }
}

/// The pixel size a JPEG declares in its frame header (SOF0 to SOF15, not DHT, JPG or DAC), read from its markers.
struct JPEGSize: Sendable, Equatable {
    var width: Int
    var height: Int

    /// A size of `width` x `height` pixels.
    init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    /// The size `bytes` declare; nil when they are not a JPEG with a frame header.
    init?(of bytes: [UInt8]) {
        guard bytes.count > 4, bytes[0] == 0xFF, bytes[1] == 0xD8 else { return nil }
        var index = 2
        while index + 9 < bytes.count {
            guard bytes[index] == 0xFF else { return nil }
            let marker = bytes[index + 1]
            if marker == 0xFF {
                index += 1
                continue
            }
            let length = Int(bytes[index + 2]) << 8 | Int(bytes[index + 3])
            if (0xC0...0xCF).contains(marker), ![0xC4, 0xC8, 0xCC].contains(marker) {
                height = Int(bytes[index + 5]) << 8 | Int(bytes[index + 6])
                width = Int(bytes[index + 7]) << 8 | Int(bytes[index + 8])
                return
            }
            guard length >= 2 else { return nil }
            index += 2 + length
        }
        return nil
    }
}

import HTTPTypes
import Hummingbird
import NIOCore

/// A `ResponseBodyWriter` that keeps what it is given.
struct BodyCollector: ResponseBodyWriter {
    let box = BodyCollectorBox()
    let limit: Int

    init(limit: Int) { self.limit = limit }

    var buffer: ByteBuffer { box.buffer }
    var overflowed: Bool { box.overflowed }

    mutating func write(_ buffer: ByteBuffer) async throws {
        var buffer = buffer
        box.buffer.writeBuffer(&buffer)
        if box.buffer.readableBytes > limit { box.overflowed = true }
    }

    consuming func finish(_ trailingHeaders: HTTPFields?) async throws {}
}

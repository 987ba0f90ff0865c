import NIOCore
import NIOHTTP1

/// A forwarded request as its upstream connection's HTTP/1.1 bytes: the head the admission made (`PassThroughRequest`)
/// with the `Host` of the address it goes to, then the body as the client's connection read it: as it is when its
/// length was declared, in chunks when it was chunked (the client's chunk framing was read off by its decoder).
enum UpstreamRequestBytes {
    /// The bytes of `head`, sent to `host`.
    static func head(_ head: HTTPRequestHead, host: String, allocator: ByteBufferAllocator) -> ByteBuffer {
        var buffer = allocator.buffer(capacity: 1024)
        buffer.writeString(head.method.rawValue)
        buffer.writeInteger(UInt8(ascii: " "))
        buffer.writeString(head.uri)
        buffer.writeStaticString(" HTTP/1.1\r\nHost: ")
        buffer.writeString(host)
        buffer.writeStaticString("\r\n")
        for (name, value) in head.headers { buffer.writeHTTPField(name, value) }
        buffer.writeStaticString("\r\n")
        return buffer
    }

    /// The bytes of a body part, `part` itself unless `chunked`; nil for an empty part (which would end a chunked body).
    static func body(_ part: ByteBuffer, chunked: Bool, allocator: ByteBufferAllocator) -> ByteBuffer? {
        guard part.readableBytes > 0 else { return nil }
        guard chunked else { return part }
        return ChunkedBytes.chunk(part, allocator: allocator)
    }
}

import NIOCore

/// Chunked transfer coding's framing (RFC 9112 section 7.1), for a request body the client sent chunked and for a
/// stream of events the gateway passes on in chunks of its own (`AnswerChunks.again`).
enum ChunkedBytes {
    /// `data` as one chunk of a chunked body.
    static func chunk(_ data: ByteBuffer, allocator: ByteBufferAllocator) -> ByteBuffer {
        var buffer = allocator.buffer(capacity: data.readableBytes + 20)
        buffer.writeString(String(data.readableBytes, radix: 16))
        buffer.writeStaticString("\r\n")
        buffer.writeImmutableBuffer(data)
        buffer.writeStaticString("\r\n")
        return buffer
    }

    /// The end of a chunked body: its last chunk, without trailers.
    static func last(allocator: ByteBufferAllocator) -> ByteBuffer {
        var buffer = allocator.buffer(capacity: 5)
        buffer.writeStaticString("0\r\n\r\n")
        return buffer
    }
}

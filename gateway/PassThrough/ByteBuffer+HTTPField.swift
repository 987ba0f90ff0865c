import NIOCore

extension ByteBuffer {
    /// Writes the HTTP/1.1 field line `name: value` and its CRLF, as the head of an upstream request
    /// (`UpstreamRequestBytes`) and of an answer passed to a client (`UpstreamAnswerHeaders`) spell it.
    mutating func writeHTTPField(_ name: String, _ value: String) {
        writeString(name)
        writeStaticString(": ")
        writeString(value)
        writeStaticString("\r\n")
    }
}

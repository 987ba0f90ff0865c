/// Why an upstream connection's bytes are not an answer the pass-through can pass on.
enum UpstreamAnswerError: Error, CustomStringConvertible {
    case unexpectedBytes, headTooLarge, badStatusLine, badFieldLine, badContentLength, badTransferEncoding, badChunk
    case switchingProtocols, closedInAnswer

    var description: String {
        switch self {
        case .unexpectedBytes: "the upstream sent bytes while no request waited for an answer"
        case .headTooLarge: "the upstream's answer head is larger than \(UpstreamAnswerParser.maxHeadBytes) bytes"
        case .badStatusLine: "the upstream's status line is not HTTP/1.x"
        case .badFieldLine: "a field line of the upstream's answer is malformed"
        case .badContentLength: "the upstream's Content-Length is not one length"
        case .badTransferEncoding: "the upstream's answer has a transfer coding other than chunked alone, or a length as well"
        case .badChunk: "the upstream's chunked body is malformed"
        case .switchingProtocols: "the upstream switched protocols, which nobody asked for"
        case .closedInAnswer: "the upstream closed the connection in the middle of an answer"
        }
    }
}

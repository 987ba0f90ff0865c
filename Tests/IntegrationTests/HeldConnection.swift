import Foundation

/// A raw client connection to a server on loopback that a test holds open in the states real clients leave them in:
/// idle after an answer (keep-alive), silent (a browser's preconnect), a half-sent request, or full of pipelined
/// requests whose answers it does not read (a slow reader, or a stalled stream).
final class HeldConnection {
    private let socket: Int32

    /// Connects to `port`; `receiveBuffer` shrinks the socket's receive buffer, so that a reader that does not read
    /// holds the server's answers back soon.
    init(port: Int, receiveBuffer: Int32? = nil) throws {
        socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw Failure("socket: errno \(errno)") }
        if var size = receiveBuffer {
            setsockopt(socket, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(socket, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(socket)
            throw Failure("connect to \(port): errno \(errno)")
        }
    }

    deinit { close(socket) }

    /// Sends all of `text`.
    func send(_ text: String) throws {
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard sent > 0 else { throw Failure("send: errno \(errno)") }
            offset += sent
        }
    }

    /// Reads one answer with a `Content-Length` and returns its status code.
    func readAnswer() throws -> Int {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            if let end = received.firstRange(of: Array("\r\n\r\n".utf8)) {
                let head = String(decoding: received[..<end.lowerBound], as: UTF8.self)
                let length =
                    head.split(separator: "\r\n").dropFirst()
                    .first { $0.lowercased().hasPrefix("content-length:") }
                    .flatMap { Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) } ?? 0
                if received.count - end.upperBound >= length {
                    return Int(head.split(separator: " ")[1]) ?? 0
                }
            }
            let count = recv(socket, &buffer, buffer.count, 0)
            guard count > 0 else { throw Failure("the server closed the connection before its answer ended (errno \(errno))") }
            received += buffer[..<count]
        }
    }

    /// Sends `request` again and again, without reading any answer, until the connection takes no more for half a
    /// second (the server holds its answers back, so it stops reading too) or `limit` bytes were sent; returns how
    /// many requests went out.
    func sendUntilHeldBack(_ request: String, limit: Int = 32 << 20) throws -> Int {
        let batch = Array(String(repeating: request, count: 64).utf8)
        var sentBytes = 0
        var offset = 0
        var pollee = pollfd(fd: socket, events: Int16(POLLOUT), revents: 0)
        while sentBytes < limit {
            let sent = batch[offset...].withUnsafeBytes { Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
            if sent > 0 {
                sentBytes += sent
                offset = (offset + sent) % batch.count
                continue
            }
            guard errno == EAGAIN || errno == EWOULDBLOCK else { throw Failure("send: errno \(errno)") }
            if poll(&pollee, 1, 500) == 0 { break }
        }
        return sentBytes / request.utf8.count
    }

    /// A connection could not be made or used.
    struct Failure: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }
}

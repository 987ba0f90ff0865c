import Foundation

/// An upstream that takes connections and never answers: a listening socket on loopback whose connections the
/// kernel completes but nobody accepts, so a request sent there waits for as long as its sender lets it.
final class SilentUpstream {
    private let socket: Int32
    let port: Int

    init() throws {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.socket = socket
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                bind(socket, address, length) == 0 && listen(socket, 64) == 0 && getsockname(socket, address, &length) == 0
            }
        }
        guard bound else {
            close(socket)
            throw HeldConnection.Failure("silent upstream: errno \(errno)")
        }
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    deinit { close(socket) }
}

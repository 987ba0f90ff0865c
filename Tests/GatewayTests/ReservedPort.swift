import Foundation

/// A loopback TCP port held by a socket that is bound but does not listen: every connection to it is refused, and no
/// other server of a test running alongside can take the port meanwhile (as it could a port merely closed). The
/// socket closes when the last copy of this is gone.
final class ReservedPort: Sendable {
    let port: Int
    private let descriptor: Int32

    /// Holds `port` (0: any free one); nil when it cannot be bound.
    init?(_ port: Int = 0) {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return nil }
        var reuse: Int32 = 1
        setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &reuse, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                bind(descriptor, address, length) == 0 && getsockname(descriptor, address, &length) == 0
            }
        }
        guard bound else {
            close(descriptor)
            return nil
        }
        self.port = Int(UInt16(bigEndian: address.sin_port))
        self.descriptor = descriptor
    }

    deinit { close(descriptor) }
}

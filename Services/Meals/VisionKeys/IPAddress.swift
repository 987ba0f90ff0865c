import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// An IPv4 or IPv6 address as its bytes, and whether it is one the open internet routes to.
enum IPAddress: Sendable, Equatable {
    case v4([UInt8])
    case v6([UInt8])

    /// The address written as `text` (dotted IPv4 or IPv6, without brackets); nil for anything else, a name included.
    init?(_ text: String) {
        var v4 = in_addr()
        var v6 = in6_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            self = .v4(withUnsafeBytes(of: v4) { Array($0) })
        } else if inet_pton(AF_INET6, text, &v6) == 1 {
            self = .v6(withUnsafeBytes(of: v6) { Array($0) })
        } else {
            return nil
        }
    }

    /// False for this network, loopback, private (RFC 1918, unique local), shared (100.64/10), link-local,
    /// documentation, benchmarking, multicast and reserved addresses, and for IPv6 forms that embed such an IPv4
    /// address (mapped, NAT64).
    var isPublic: Bool {
        switch self {
        case .v4(let bytes): return Self.isPublicV4(bytes)
        case .v6(let bytes):
            guard bytes.count == 16 else { return false }
            if bytes[0..<10].allSatisfy({ $0 == 0 }) && bytes[10] == 0xFF && bytes[11] == 0xFF { return Self.isPublicV4(Array(bytes[12...])) }
            if bytes[0..<12] == [0x00, 0x64, 0xFF, 0x9B, 0, 0, 0, 0, 0, 0, 0, 0] { return Self.isPublicV4(Array(bytes[12...])) }
            if bytes[0..<15].allSatisfy({ $0 == 0 }) { return false }  // :: and ::1
            if bytes[0] & 0xFE == 0xFC { return false }  // fc00::/7 unique local
            if bytes[0] == 0xFE && bytes[1] & 0xC0 == 0x80 { return false }  // fe80::/10 link-local
            if bytes[0] == 0xFE && bytes[1] & 0xC0 == 0xC0 { return false }  // fec0::/10 site-local (deprecated)
            if bytes[0] == 0xFF { return false }  // multicast
            if bytes[0] == 0x20 && bytes[1] == 0x01 && bytes[2] == 0x0D && bytes[3] == 0xB8 { return false }  // 2001:db8::/32 documentation
            if bytes[0] == 0x01 && bytes[1..<8].allSatisfy({ $0 == 0 }) { return false }  // 100::/64 discard
            return bytes[0] & 0xE0 == 0x20  // only global unicast (2000::/3) is routed
        }
    }

    private static func isPublicV4(_ bytes: [UInt8]) -> Bool {
        guard bytes.count == 4 else { return false }
        let (a, b, c) = (bytes[0], bytes[1], bytes[2])
        switch a {
        case 0, 10, 127: return false
        case 100 where b & 0xC0 == 64: return false  // 100.64.0.0/10 shared
        case 169 where b == 254: return false  // link-local, cloud metadata
        case 172 where b & 0xF0 == 16: return false
        case 192 where b == 168: return false
        case 192 where b == 0 && (c == 0 || c == 2): return false
        case 198 where b == 18 || b == 19: return false  // benchmarking
        case 198 where b == 51 && c == 100: return false
        case 203 where b == 0 && c == 113: return false
        case 224...: return false  // multicast, reserved, broadcast
        default: return true
        }
    }
}

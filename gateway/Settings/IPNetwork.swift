import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// An IPv4 or IPv6 network in CIDR notation (`10.0.0.0/8`, `::1/128`); a bare address is a single host.
struct IPNetwork: Sendable, Equatable {
    let bytes: [UInt8]
    let prefixLength: Int

    /// Parses CIDR notation; nil for anything else.
    init?(_ text: String) {
        let parts = text.split(separator: "/", maxSplits: 1).map(String.init)
        guard let bytes = Self.addressBytes(parts[0]) else { return nil }
        let maxLength = bytes.count * 8
        let length = parts.count == 2 ? Int(parts[1]) : maxLength
        guard let length, (0...maxLength).contains(length) else { return nil }
        self.bytes = bytes
        self.prefixLength = length
    }

    /// Whether `address` (4 or 16 bytes) lies in this network; IPv4-mapped IPv6 addresses match IPv4 networks.
    func contains(_ address: [UInt8]) -> Bool {
        var address = address
        if bytes.count == 4, address.count == 16, address[0..<10].allSatisfy({ $0 == 0 }), address[10] == 0xFF, address[11] == 0xFF {
            address = Array(address[12...])
        }
        guard address.count == bytes.count else { return false }
        var remaining = prefixLength
        for index in bytes.indices where remaining > 0 {
            let bits = min(8, remaining)
            let mask = UInt8(truncatingIfNeeded: 0xFF << (8 - bits))
            if address[index] & mask != bytes[index] & mask { return false }
            remaining -= bits
        }
        return true
    }

    /// The 4 or 16 bytes of a textual IPv4 or IPv6 address; nil when `text` is not one.
    static func addressBytes(_ text: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            return withUnsafeBytes(of: &v4) { Array($0) }
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 {
            return withUnsafeBytes(of: &v6) { Array($0) }
        }
        return nil
    }
}

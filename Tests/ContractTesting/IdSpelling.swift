import Foundation

/// The contract's one spelling of ids: a UUID written anywhere (a body, a header, an event, an export) is lower case.
public enum IdSpelling {
    /// Every UUID in `text` written with an upper-case hexadecimal digit, in the order found.
    public static func upperCaseUUIDs(in text: String) -> [String] {
        var found: [String] = []
        let bytes = Array(text.utf8)
        var start = 0
        while start + 36 <= bytes.count {
            if isUUID(bytes[start..<start + 36]) {
                let candidate = bytes[start..<start + 36]
                if candidate.contains(where: { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "F") }) {
                    found.append(String(decoding: candidate, as: UTF8.self))
                }
                start += 36
            } else {
                start += 1
            }
        }
        return found
    }

    /// Problems naming each upper-case UUID in `text`, prefixed by `place` (e.g. "GET /api/meals → 200").
    public static func problems(in text: String, at place: String) -> [String] {
        upperCaseUUIDs(in: text).map { "\(place): the id \($0) is not lower case" }
    }

    /// Whether 36 bytes are the 8-4-4-4-12 hexadecimal groups of a UUID.
    private static func isUUID(_ bytes: ArraySlice<UInt8>) -> Bool {
        for (offset, byte) in bytes.enumerated() {
            if [8, 13, 18, 23].contains(offset) {
                guard byte == UInt8(ascii: "-") else { return false }
            } else {
                let isHex =
                    (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "f"))
                    || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "F"))
                guard isHex else { return false }
            }
        }
        return true
    }
}

/// A request target's query as HTML forms, `URLSearchParams` and most HTTP libraries write it
/// (`application/x-www-form-urlencoded`): `+` is a space. The services' router reads `+` as itself, so the gateway
/// writes every `+` of the query as `%20` before a request goes on; a literal plus arrives as `%2B`, as those encoders
/// send it. The path before `?` keeps its `+`.
enum FormQuerySpaces {
    /// `target` with each `+` of its query as `%20`; `target` itself when its query has none (the usual case).
    static func decoded(_ target: String) -> String {
        let utf8 = target.utf8
        guard let question = utf8.firstIndex(of: UInt8(ascii: "?")), utf8[question...].contains(UInt8(ascii: "+")) else { return target }
        var bytes = Array(utf8[..<question])
        bytes.reserveCapacity(utf8.count + 8)
        for byte in utf8[question...] {
            if byte == UInt8(ascii: "+") {
                bytes += [UInt8(ascii: "%"), UInt8(ascii: "2"), UInt8(ascii: "0")]
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

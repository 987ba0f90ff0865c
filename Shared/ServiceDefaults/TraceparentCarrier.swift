import Tracing

/// Reads and writes trace context in a plain dictionary, the form used for a single stored `traceparent`.
public struct TraceparentCarrier: Injector, Extractor {
    public init() {}

    public func inject(_ value: String, forKey key: String, into carrier: inout [String: String]) {
        carrier[key] = value
    }

    public func extract(key: String, from carrier: [String: String]) -> String? {
        carrier[key]
    }
}

import NIOHTTP1
import Tracing

/// Writes trace context into the headers of a request the service sends (AsyncHTTPClient), replacing any
/// copy already there (a repeated `traceparent` is unreadable).
public struct HTTPHeadersCarrier: Injector {
    public init() {}

    public func inject(_ value: String, forKey key: String, into carrier: inout HTTPHeaders) {
        carrier.replaceOrAdd(name: key, value: value)
    }
}

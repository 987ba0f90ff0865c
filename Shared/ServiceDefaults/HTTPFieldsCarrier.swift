import HTTPTypes
import Tracing

/// Reads trace context from the headers of a request the service received.
public struct HTTPFieldsCarrier: Extractor {
    public init() {}

    public func extract(key: String, from carrier: HTTPFields) -> String? {
        HTTPField.Name(key).flatMap { carrier[$0] }
    }
}

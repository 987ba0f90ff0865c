import Foundation
import WireJSON

/// A CloudEvents 1.0 event in structured JSON form, carrying a typed payload.
public struct EventEnvelope<Payload: EventPayload>: Codable, Sendable, Equatable {
    public var specversion: String
    /// Unique per event; consumers' inboxes deduplicate on it.
    public var id: UUID
    /// The producing service, e.g. `auth`.
    public var source: String
    /// The topic name, e.g. `meal.consumed`.
    public var type: String
    public var time: Date
    /// The user the event is about (also the Kafka message key).
    public var subject: String
    public var datacontenttype: String
    public var dataschemaversion: Int
    /// The W3C trace context of the work that made the event (the CloudEvents distributed-tracing extension
    /// attribute); absent when that work was not traced. Optional for consumers: events without it are valid.
    public var traceparent: String?
    public var data: Payload

    /// A new event about `subject`, stamped now with a fresh id.
    public init(source: String, subject: String, data: Payload, id: UUID = UUID(), time: Date = Date()) {
        self.specversion = "1.0"
        self.id = id
        self.source = source
        self.type = Payload.topic.rawValue
        self.time = time
        self.subject = subject
        self.datacontenttype = "application/json"
        self.dataschemaversion = Payload.schemaVersion
        self.data = data
    }
}

/// The attributes every envelope has, readable before the payload's type is known.
public struct EventHeader: Codable, Sendable, Equatable {
    public var specversion: String
    public var id: UUID
    public var source: String
    public var type: String
    public var time: Date
    public var subject: String
    public var dataschemaversion: Int
    /// See `EventEnvelope.traceparent`.
    public var traceparent: String?
}

/// The one JSON encoding of events: ISO-8601 UTC timestamps, stable key order.
public enum EventCoding {
    /// Encodes an envelope to the bytes put on the topic.
    public static func encode<Payload>(_ envelope: EventEnvelope<Payload>) throws -> [UInt8] {
        Array(try encoder.encode(envelope))
    }

    /// Reads the common attributes of any event.
    public static func header(of bytes: [UInt8]) throws -> EventHeader {
        try decoder.decode(EventHeader.self, from: Data(bytes))
    }

    /// Decodes an envelope of a known payload type.
    public static func decode<Payload>(_ type: Payload.Type, from bytes: [UInt8]) throws -> EventEnvelope<Payload> {
        try decoder.decode(EventEnvelope<Payload>.self, from: Data(bytes))
    }

    private static var encoder: JSONEncoder {
        let encoder = WireJSONEncoder()
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true)))
        }
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }

    private static var decoder: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let text = try decoder.singleValueContainer().decode(String.self)
            if let date = try? Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true)) {
                return date
            }
            if let date = try? Date(text, strategy: .iso8601) { return date }
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not an ISO-8601 time: \(text)"))
        }
        return decoder
    }
}

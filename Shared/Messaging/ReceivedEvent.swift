import EventContracts
import Foundation

/// An event as received, with its header decoded and its payload decodable on demand.
public struct ReceivedEvent: Sendable {
    public let header: EventHeader
    public let bytes: [UInt8]
    /// The W3C trace context of the publish (the message's `traceparent` header), else the one the envelope
    /// carries; nil when neither was traced.
    public let traceparent: String?
    /// Where it was read; nil for an event replayed from `parked_events` or made up by a test.
    public var position: MessagePosition?

    public init(header: EventHeader, bytes: [UInt8], traceparent: String?, position: MessagePosition? = nil) {
        self.header = header
        self.bytes = bytes
        self.traceparent = traceparent
        self.position = position
    }

    /// Decodes the full envelope with the payload type of `header.type`, whatever its `dataschemaversion`.
    public func decode<Payload: EventPayload>(_ type: Payload.Type) throws -> EventEnvelope<Payload> {
        try EventCoding.decode(type, from: bytes)
    }

    /// The payload as `type`. A `dataschemaversion` that `type` does not read (a newer one, from a producer deployed
    /// before this consumer) or an unreadable payload is `EventRejected`: the inbox parks the event until a consumer
    /// that reads it applies it. Fields the payload type does not know are ignored.
    public func payload<Payload: EventPayload>(_ type: Payload.Type) throws -> Payload {
        guard Payload.readableVersions.contains(header.dataschemaversion) else {
            throw EventRejected(
                "\(header.type) dataschemaversion \(header.dataschemaversion) is not one this consumer reads "
                    + "(\(Payload.readableVersions.lowerBound)...\(Payload.readableVersions.upperBound))")
        }
        do {
            return try decode(type).data
        } catch {
            throw EventRejected("unreadable \(header.type) payload (dataschemaversion \(header.dataschemaversion))")
        }
    }
}

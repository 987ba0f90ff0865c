/// The typed `data` of one kind of event: which topic carries it and which schema version it is.
public protocol EventPayload: Codable, Sendable, Equatable {
    /// The topic, which is also the CloudEvents `type`.
    static var topic: Topic { get }
    /// Bumped on any change a consumer must know about; sent as the `dataschemaversion` attribute.
    static var schemaVersion: Int { get }
}

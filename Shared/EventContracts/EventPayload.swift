/// The typed `data` of one kind of event: which topic carries it and which schema version it is.
///
/// Compatibility rules (docs/asyncapi.json, "Versioning"): within a version, a producer may only add optional fields,
/// which older consumers ignore; any other change is a new version, which is a new schema with a type of its own.
public protocol EventPayload: Codable, Sendable, Equatable {
    /// The topic, which is also the CloudEvents `type`.
    static var topic: Topic { get }
    /// Bumped on any change a consumer must know about; sent as the `dataschemaversion` attribute.
    static var schemaVersion: Int { get }
    /// The `dataschemaversion`s this type decodes; an event of another version is parked by the consumer, never
    /// decoded as this type. Only `schemaVersion` unless the type says it also reads older ones.
    static var readableVersions: ClosedRange<Int> { get }
}

extension EventPayload {
    /// Only the version this type is.
    public static var readableVersions: ClosedRange<Int> { schemaVersion...schemaVersion }
}

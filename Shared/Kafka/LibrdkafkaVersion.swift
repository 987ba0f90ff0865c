import CRdKafka

/// The librdkafka the process actually loaded, and the check that it is new enough.
public enum LibrdkafkaVersion {
    /// Oldest version that speaks the ApiVersions v3 answer of current brokers.
    public static let minimum = (major: 2, minor: 3)

    /// Version string of the loaded shared library, e.g. "2.8.0".
    public static var loaded: String { String(cString: rd_kafka_version_str()) }

    /// Throws `unsupportedLibrary` when the loaded library is older than `minimum`.
    public static func requireSupported() throws {
        let hex = rd_kafka_version()
        let major = Int((hex >> 24) & 0xff)
        let minor = Int((hex >> 16) & 0xff)
        if (major, minor) < (minimum.major, minimum.minor) {
            throw KafkaError.unsupportedLibrary(found: loaded, required: "\(minimum.major).\(minimum.minor)")
        }
    }
}

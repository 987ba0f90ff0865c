import Foundation
import Logging
import NIOConcurrencyHelpers

/// A swift-log handler that writes one JSON object per line to standard output.
public struct JSONLogHandler: LogHandler {
    private static let outputLock = NIOLock()
    private let label: String
    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level

    public init(label: String, level: Logger.Level) {
        self.label = label
        self.logLevel = level
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var object: [String: Any] = [
            "time": Date().formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true)),
            "level": event.level.rawValue,
            "logger": label,
            "message": event.message.description,
        ]
        for (key, value) in metadata.merging(event.metadata ?? [:], uniquingKeysWith: { _, new in new }) {
            object[key] = Self.plain(value)
        }
        guard var line = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
        else { return }
        line.append(0x0A)
        Self.outputLock.withLock { FileHandle.standardOutput.write(line) }
    }

    private static func plain(_ value: Logger.MetadataValue) -> Any {
        switch value {
        case .string(let text): text
        case .stringConvertible(let convertible): convertible.description
        case .array(let values): values.map(plain)
        case .dictionary(let values): values.mapValues(plain)
        }
    }
}

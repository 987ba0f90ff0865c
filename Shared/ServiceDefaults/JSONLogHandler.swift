import Foundation
import Logging
import NIOConcurrencyHelpers

/// A swift-log handler that writes one JSON object per line to standard output.
/// Hand-encoded: it runs for every request, where Foundation's JSON and date formatting cost more than the proxying.
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
        var fields = metadata
        if let extra = event.metadata { fields.merge(extra) { _, new in new } }
        var line = "{\"time\":\"\(Self.timestamp())\",\"level\":\"\(event.level.rawValue)\",\"logger\":"
        Self.appendString(label, to: &line)
        line += ",\"message\":"
        Self.appendString(event.message.description, to: &line)
        for key in fields.keys.sorted() {
            line += ","
            Self.appendString(key, to: &line)
            line += ":"
            Self.appendValue(fields[key]!, to: &line)
        }
        line += "}\n"
        Self.outputLock.withLock {
            line.withUTF8 { bytes in
                var offset = 0
                while offset < bytes.count {
                    let written = write(STDOUT_FILENO, bytes.baseAddress! + offset, bytes.count - offset)
                    if written <= 0 { if errno == EINTR { continue } else { return } }
                    offset += written
                }
            }
        }
    }

    /// `2026-11-21T10:00:00.123Z`, from the system clock without Foundation formatters.
    static func timestamp() -> String {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        var parts = tm()
        var seconds = now.tv_sec
        gmtime_r(&seconds, &parts)
        func pad(_ value: Int32, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return "\(pad(parts.tm_year + 1900, 4))-\(pad(parts.tm_mon + 1, 2))-\(pad(parts.tm_mday, 2))T"
            + "\(pad(parts.tm_hour, 2)):\(pad(parts.tm_min, 2)):\(pad(parts.tm_sec, 2)).\(pad(Int32(now.tv_nsec / 1_000_000), 3))Z"
    }

    /// Appends `text` as a JSON string literal, escaping quotes, backslashes and control characters (RFC 8259); also
    /// what the gateway's OTLP/JSON export writes its strings with.
    public static func appendString(_ text: String, to line: inout String) {
        line += "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": line += "\\\""
            case "\\": line += "\\\\"
            case "\n": line += "\\n"
            case "\r": line += "\\r"
            case "\t": line += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                line += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: line.unicodeScalars.append(scalar)
            }
        }
        line += "\""
    }

    private static func appendValue(_ value: Logger.MetadataValue, to line: inout String) {
        switch value {
        case .string(let text): appendString(text, to: &line)
        case .stringConvertible(let convertible): appendString(convertible.description, to: &line)
        case .array(let values):
            line += "["
            for (index, element) in values.enumerated() {
                if index > 0 { line += "," }
                appendValue(element, to: &line)
            }
            line += "]"
        case .dictionary(let values):
            line += "{"
            for (index, key) in values.keys.sorted().enumerated() {
                if index > 0 { line += "," }
                appendString(key, to: &line)
                line += ":"
                appendValue(values[key]!, to: &line)
            }
            line += "}"
        }
    }
}

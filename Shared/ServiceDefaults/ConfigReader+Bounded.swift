import Configuration
import Foundation

extension ConfigReader {
    /// A whole-number setting within `range`, `defaultValue` when unset. A value that is not a number or outside
    /// `range` stops the start (`ConfigurationError`, naming the environment variable) instead of becoming the default.
    public func integer(_ key: String, default defaultValue: Int, in range: ClosedRange<Int>) throws -> Int {
        let variable = key.uppercased().replacingOccurrences(of: ".", with: "_")
        let reason = "must be a whole number from \(range.lowerBound) to \(range.upperBound)"
        // Environment values arrive as strings; typed providers (JSON, in-memory) may hold real integers.
        if let text = string(forKey: ConfigKey(key)) {
            guard let value = Int(text.trimmingCharacters(in: .whitespaces)), range.contains(value) else {
                throw ConfigurationError.invalid(variable, reason: "\(reason), not \"\(text)\"")
            }
            return value
        }
        if let value = int(forKey: ConfigKey(key)) {
            guard range.contains(value) else { throw ConfigurationError.invalid(variable, reason: "\(reason), not \(value)") }
            return value
        }
        return defaultValue
    }

    /// A number setting within `range` (fractions allowed), `defaultValue` when unset; unusable values stop the start.
    public func number(_ key: String, default defaultValue: Double, in range: ClosedRange<Double>) throws -> Double {
        let variable = key.uppercased().replacingOccurrences(of: ".", with: "_")
        let reason = "must be a number from \(range.lowerBound) to \(range.upperBound)"
        if let text = string(forKey: ConfigKey(key)) {
            guard let value = Double(text.trimmingCharacters(in: .whitespaces)), value.isFinite, range.contains(value) else {
                throw ConfigurationError.invalid(variable, reason: "\(reason), not \"\(text)\"")
            }
            return value
        }
        if let value = double(forKey: ConfigKey(key)) ?? int(forKey: ConfigKey(key)).map(Double.init) {
            guard range.contains(value) else { throw ConfigurationError.invalid(variable, reason: "\(reason), not \(value)") }
            return value
        }
        return defaultValue
    }
}

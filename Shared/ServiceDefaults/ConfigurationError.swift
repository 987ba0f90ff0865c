/// A setting that is missing or unusable; thrown at start so the process stops with a clear message.
public enum ConfigurationError: Error, CustomStringConvertible {
    case missing(String, hint: String)
    case invalid(String, reason: String)

    public var description: String {
        switch self {
        case .missing(let variable, let hint): "missing required setting \(variable) (\(hint))"
        case .invalid(let variable, let reason): "invalid setting \(variable): \(reason)"
        }
    }
}

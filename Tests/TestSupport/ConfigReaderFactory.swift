import Configuration

/// Builds an in-memory configuration from string values typed as the environment provider reads them:
/// numbers become ints or doubles and true/false booleans, so `config.int` and `config.double` see them.
public enum ConfigReaderFactory {
    /// A reader over `values`, keyed as in code (`meals.vision.base.url`).
    public static func make(_ values: [String: String]) -> ConfigReader {
        var content: [AbsoluteConfigKey: ConfigValue] = [:]
        for (key, value) in values {
            content[AbsoluteConfigKey(key.split(separator: ".").map(String.init))] = .init(typed(value), isSecret: false)
        }
        return ConfigReader(provider: InMemoryProvider(values: content))
    }

    private static func typed(_ value: String) -> ConfigContent {
        if let integer = Int(value) { return .int(integer) }
        if let double = Double(value) { return .double(double) }
        if value == "true" || value == "false" { return .bool(value == "true") }
        return .string(value)
    }
}

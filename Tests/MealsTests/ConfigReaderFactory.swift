import Configuration

/// Builds an in-memory configuration from string values, as the environment provider would see them.
enum ConfigReaderFactory {
    /// A reader over `values`, keyed as in code (`meals.vision.base.url`).
    static func make(_ values: [String: String]) -> ConfigReader {
        var content: [AbsoluteConfigKey: ConfigValue] = [:]
        for (key, value) in values {
            content[AbsoluteConfigKey(key.split(separator: ".").map(String.init))] = .init(.string(value), isSecret: false)
        }
        return ConfigReader(provider: InMemoryProvider(values: content))
    }
}

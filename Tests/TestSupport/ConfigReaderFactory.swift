import Configuration

/// Builds a configuration from string values read exactly as the services read their environment: each key
/// (`meals.vision.base.url`) becomes its variable (`MEALS_VISION_BASE_URL`) of an `EnvironmentVariablesProvider`, so a
/// value is parsed as the type the code asks for (`config.double` reads "60" as 60.0, as it does in production).
public enum ConfigReaderFactory {
    /// A reader over `values`, keyed as in code (`meals.vision.base.url`).
    public static func make(_ values: [String: String]) -> ConfigReader {
        var variables: [String: String] = [:]
        for (key, value) in values {
            variables[key.split(separator: ".").joined(separator: "_").uppercased()] = value
        }
        return ConfigReader(provider: EnvironmentVariablesProvider(environmentVariables: variables))
    }
}

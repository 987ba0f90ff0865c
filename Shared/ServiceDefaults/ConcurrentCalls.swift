/// Calls made at once, one per key, whose results are collected by key.
public enum ConcurrentCalls {
    /// Runs `call` for every key at once and answers each key's result (value or error) once all have ended, so the
    /// caller decides with every answer in hand and nothing is left running. Each value is awaited into a local before
    /// it is paired with its key: `(key, try await call(key))` loses the key in release builds of Swift 6.3.1
    /// (docs/PERFORMANCE.md, "Load run 2").
    public static func results<Key: Hashable & Sendable, Value: Sendable>(
        for keys: some Sequence<Key>, _ call: @escaping @Sendable (Key) async throws -> Value
    ) async -> [Key: Result<Value, any Error>] {
        await withTaskGroup(of: (Key, Result<Value, any Error>).self) { group in
            for key in keys {
                group.addTask {
                    let result: Result<Value, any Error>
                    do { result = .success(try await call(key)) } catch { result = .failure(error) }
                    return (key, result)
                }
            }
            var results: [Key: Result<Value, any Error>] = [:]
            for await (key, result) in group { results[key] = result }
            return results
        }
    }
}

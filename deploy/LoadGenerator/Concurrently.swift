/// Runs `body` for 0..<count with at most `width` at once; answers the results in index order.
func concurrently<T: Sendable>(_ count: Int, width: Int, _ body: @escaping @Sendable (Int) async throws -> T) async throws -> [T] {
    try await withThrowingTaskGroup(of: (Int, T).self) { group in
        var results = [T?](repeating: nil, count: count)
        var next = 0
        // The value is awaited before the tuple is made: `(index, try await ...)` can lose `index` in release builds of
        // Swift 6.3.1 (docs/PERFORMANCE.md, "Load run 2").
        func start(_ index: Int) {
            group.addTask {
                let value = try await body(index)
                return (index, value)
            }
        }
        while next < min(width, count) {
            start(next)
            next += 1
        }
        while let (index, value) = try await group.next() {
            results[index] = value
            if next < count {
                start(next)
                next += 1
            }
        }
        return results.map { $0! }
    }
}

/// Runs `body` for 0..<count with at most `width` at once; answers the results in index order.
func concurrently<T: Sendable>(_ count: Int, width: Int, _ body: @escaping @Sendable (Int) async throws -> T) async throws -> [T] {
    try await withThrowingTaskGroup(of: (Int, T).self) { group in
        var results = [T?](repeating: nil, count: count)
        var next = 0
        while next < min(width, count) {
            let index = next
            group.addTask { (index, try await body(index)) }
            next += 1
        }
        while let (index, value) = try await group.next() {
            results[index] = value
            if next < count {
                let index = next
                group.addTask { (index, try await body(index)) }
                next += 1
            }
        }
        return results.map { $0! }
    }
}

import PostgresNIO

/// Every row a `PostgresPool.query` returned, read before its connection went back to the pool (so the pool's
/// in-use count ends with the query). Read like postgres-nio's `PostgresRowSequence`: `for try await row in rows`,
/// `rows.decode((UUID, String).self)` (postgres-nio's decoding of any sequence of rows), or `collect()`.
public struct PostgresRows: AsyncSequence, Sendable {
    public typealias Element = PostgresRow

    /// The rows, in the order the server sent them.
    public let rows: [PostgresRow]

    public init(_ rows: [PostgresRow]) {
        self.rows = rows
    }

    /// The rows as an array.
    public func collect() -> [PostgresRow] { rows }

    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: rows.makeIterator())
    }

    /// Walks the rows already read.
    public struct AsyncIterator: AsyncIteratorProtocol {
        var base: IndexingIterator<[PostgresRow]>

        public mutating func next() async throws -> PostgresRow? { base.next() }
    }
}

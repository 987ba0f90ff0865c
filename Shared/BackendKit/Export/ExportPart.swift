import Foundation
import Hummingbird
import Logging
import NIOCore
import PostgresNIO
import PostgresSupport

/// What one service contributes to the user's data export (`GET /api/export/<name>`): its tables of the caller's
/// records. The rows are streamed from Postgres into the response in chunks, never collected whole, inside one
/// read-only repeatable-read transaction, so the tables of one answer are one consistent snapshot.
public struct ExportPart: Sendable {
    /// The part's name: its path `/api/export/<name>` and its key in the gateway's JSON document.
    public var name: String
    public var tables: [ExportTable]
    /// Bytes gathered before a chunk is written to the response.
    static let chunkBytes = 32 * 1024
    /// The transaction's statement timeout: longer than the pool's, because a large table is read at the pace the
    /// client downloads it (the query waits while the response is pushed back on).
    static let statementTimeout = "120s"

    public init(name: String, tables: [ExportTable]) {
        self.name = name
        self.tables = tables
    }

    /// The table whose CSV file is `file`, if the part has one.
    func csvTable(_ file: String) -> ExportTable? {
        tables.first { $0.inCSV && $0.file == file }
    }

    /// The part's CSV files in zip order.
    var csvFiles: [String] { tables.filter(\.inCSV).map(\.file) }

    /// The response body: the part's JSON document `{"<key>": [...], ...}`, or the CSV file of `csvTable`. A failure
    /// after the first byte is logged and rethrown, which closes the connection without the last chunk, so the
    /// download cannot look complete.
    func body(csvTable: ExportTable?, userId: UUID, pool: PostgresPool, logger: Logger) -> ResponseBody {
        ResponseBody { writer in
            do {
                try await pool.transaction(logger: logger) { connection in
                    try await connection.query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY", logger: logger)
                    try await connection.query("SET LOCAL statement_timeout = '\(unescaped: Self.statementTimeout)'", logger: logger)
                    if let csvTable {
                        try await writeCSV(csvTable, userId: userId, connection: connection, logger: logger, to: &writer)
                    } else {
                        try await writeJSON(userId: userId, connection: connection, logger: logger, to: &writer)
                    }
                }
            } catch {
                logger.error(
                    "export part failed while streaming; the download is cut off",
                    metadata: ["part": .string(name), "table": .string(csvTable?.file ?? "json"), "error": .string(LogSafeError.describe(error))])
                throw error
            }
            try await writer.finish(nil)
        }
    }

    private func writeJSON(userId: UUID, connection: PostgresConnection, logger: Logger, to writer: inout any ResponseBodyWriter) async throws {
        var buffer = ByteBuffer(string: "{")
        for (index, table) in tables.filter(\.inJSON).enumerated() {
            buffer.writeString(index == 0 ? "\"\(table.key)\":" : ",\"\(table.key)\":")
            if !table.isSingleRow { buffer.writeString("[") }
            var rowCount = 0
            for try await row in try await connection.query(table.jsonQuery(userId: userId), logger: logger).decode(String.self) {
                // A single-row table keys on the user's id, so a second row never comes; if it did, it is left out.
                if table.isSingleRow && rowCount > 0 { continue }
                if rowCount > 0 { buffer.writeString(",") }
                buffer.writeString(row)
                rowCount += 1
                if buffer.readableBytes >= Self.chunkBytes { try await flush(&buffer, to: &writer) }
            }
            if table.isSingleRow {
                if rowCount == 0 { buffer.writeString("null") }
            } else {
                buffer.writeString("]")
            }
        }
        buffer.writeString("}")
        try await flush(&buffer, to: &writer)
    }

    private func writeCSV(
        _ table: ExportTable, userId: UUID, connection: PostgresConnection, logger: Logger, to writer: inout any ResponseBodyWriter
    ) async throws {
        var buffer = ByteBuffer(string: table.csvHeader)
        let guarded = table.guardedFields
        for try await fields in try await connection.query(table.csvQuery(userId: userId), logger: logger).decode([String].self) {
            buffer.writeString(CSVField.record(fields, guardFormula: guarded))
            if buffer.readableBytes >= Self.chunkBytes { try await flush(&buffer, to: &writer) }
        }
        try await flush(&buffer, to: &writer)
    }

    private func flush(_ buffer: inout ByteBuffer, to writer: inout any ResponseBodyWriter) async throws {
        guard buffer.readableBytes > 0 else { return }
        try await writer.write(buffer)
        buffer.clear()
    }
}

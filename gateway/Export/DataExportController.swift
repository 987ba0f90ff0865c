import AsyncHTTPClient
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import ServiceDefaults

/// `GET /api/export?format=json|csv`: every record of the caller from every service as one download, composed by the
/// gateway from each service's part (`/api/export/<part>`, `ExportSection`) and streamed through as it arrives, never
/// held whole. JSON is one document `{"exportedAt", "format": 1, "account": {...}, "meals": {...}, ...}`; CSV is a zip
/// (`ZipWriter`) of one file per table. The routes file gives the route the upstream `gateway` and the `export` rate
/// limit. Every part is reached before the first byte, so a part that is down is a 503 in the error shape; a part that
/// fails later cuts the download off (the connection closes without the last chunk, the zip without its directory)
/// and is logged, so a client never takes a partial export for a whole one.
struct DataExportController: Sendable {
    let caller: ExportPartCaller
    /// The export's time (`exportedAt`, the file name, the zip entries' time).
    let now: @Sendable () -> Date
    /// The version of the JSON document's shape.
    static let documentFormat = 1

    func addRoutes(to router: Router<GatewayRequestContext>) {
        router.get("/api/export") { request, context in try await export(request, context) }
    }

    func export(_ request: Request, _ context: GatewayRequestContext) async throws -> Response {
        guard request.headers[CallerIdentity.userIdHeader] != nil else {
            throw APIError(.unauthorized, code: "unauthenticated", message: "Sign in to use this route.")
        }
        let format = request.uri.queryParameters.get("format") ?? "json"
        let exportedAt = now()
        switch format {
        case "json": return try await jsonExport(request, context, exportedAt: exportedAt)
        case "csv": return try await csvExport(request, context, exportedAt: exportedAt)
        default: throw APIError.invalid(["format": "Use json or csv."])
        }
    }

    /// Opens every part's JSON at once, then writes them one after the other under their keys.
    private func jsonExport(_ request: Request, _ context: GatewayRequestContext, exportedAt: Date) async throws -> Response {
        let parts = try await caller.each { section in
            try await caller.open(section, query: "format=json", request: request, context: context)
        }
        let logger = context.logger
        let timestamp = exportedAt.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
        let body = ResponseBody { writer in
            try await writer.write(ByteBuffer(string: "{\"exportedAt\":\"\(timestamp)\",\"format\":\(Self.documentFormat)"))
            for (section, response) in parts {
                try await writer.write(ByteBuffer(string: ",\"\(section.rawValue)\":"))
                var bytes = 0
                try await Self.relay(response, section: section, file: nil, logger: logger) { chunk in
                    bytes += chunk.readableBytes
                    try await writer.write(chunk)
                }
                // An empty part would leave the document without a value here.
                if bytes == 0 { throw Self.cutOff(ExportPartEmpty(), section: section, file: nil, logger: logger) }
            }
            try await writer.write(ByteBuffer(string: "}"))
            try await writer.finish(nil)
        }
        return Response(
            status: .ok, headers: Self.headers(contentType: "application/json; charset=utf-8", name: Self.fileName(exportedAt, "json")), body: body)
    }

    /// Asks every part for its CSV files and opens the first before answering, then streams each file into the zip.
    private func csvExport(_ request: Request, _ context: GatewayRequestContext, exportedAt: Date) async throws -> Response {
        let lists = try await caller.each { section in try await caller.csvFiles(of: section, request: request, context: context) }
        var files: [(section: ExportSection, table: String, entry: String)] = []
        for (section, tables) in lists {
            for table in tables {
                // Parts name their files uniquely; should two ever collide, the later one is put under its part's name.
                let name = files.contains { $0.entry == "\(table).csv" } ? "\(section.rawValue)_\(table).csv" : "\(table).csv"
                files.append((section, table, name))
            }
        }
        let chosen = files
        var opened: HTTPClientResponse?
        if let file = chosen.first { opened = try await openFile(file.section, file.table, request: request, context: context) }
        let first = opened
        let logger = context.logger
        let body = ResponseBody { writer in
            var zip = ZipWriter(modifiedAt: exportedAt)
            for (index, file) in chosen.enumerated() {
                let response: HTTPClientResponse
                if index == 0, let first {
                    response = first
                } else {
                    do {
                        response = try await openFile(file.section, file.table, request: request, context: context)
                    } catch {
                        throw Self.cutOff(error, section: file.section, file: file.entry, logger: logger)
                    }
                }
                try await writer.write(try zip.startEntry(file.entry))
                try await Self.relay(response, section: file.section, file: file.entry, logger: logger) { chunk in
                    try await writer.write(try zip.data(chunk))
                }
                try await writer.write(try zip.finishEntry())
            }
            try await writer.write(try zip.finish())
            try await writer.finish(nil)
        }
        return Response(status: .ok, headers: Self.headers(contentType: "application/zip", name: Self.fileName(exportedAt, "zip")), body: body)
    }

    private func openFile(_ section: ExportSection, _ table: String, request: Request, context: GatewayRequestContext) async throws
        -> HTTPClientResponse
    {
        let name = table.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? table
        return try await caller.open(section, query: "format=csv&table=\(name)", request: request, context: context)
    }

    /// Passes each chunk of a part's answer to `write`. A part failing mid-answer is logged as a cut-off download and
    /// rethrown, which closes the client's connection unfinished; a failure to write to the client (it went away) is
    /// rethrown as it is.
    private static func relay(
        _ response: HTTPClientResponse, section: ExportSection, file: String?, logger: Logger, _ write: (ByteBuffer) async throws -> Void
    ) async throws {
        var chunks = response.body.makeAsyncIterator()
        while true {
            let chunk: ByteBuffer?
            do {
                chunk = try await chunks.next()
            } catch {
                throw cutOff(error, section: section, file: file, logger: logger)
            }
            guard let chunk else { return }
            try await write(chunk)
        }
    }

    /// Logs that a part failed after the download started, and returns the error to throw.
    private static func cutOff(_ error: any Error, section: ExportSection, file: String?, logger: Logger) -> any Error {
        logger.error(
            "data export cut off: a part failed after the download started",
            metadata: ["part": .string(section.rawValue), "file": .string(file ?? "json"), "error": "\(error)"])
        return error
    }

    /// `nutritionai-export-2026-11-25.json`: the export's day in UTC.
    static func fileName(_ exportedAt: Date, _ fileExtension: String) -> String {
        "nutritionai-export-\(exportedAt.formatted(Date.ISO8601FormatStyle().year().month().day())).\(fileExtension)"
    }

    private static func headers(contentType: String, name: String) -> HTTPFields {
        [.contentType: contentType, .contentDisposition: "attachment; filename=\"\(name)\"", .cacheControl: "no-store"]
    }
}

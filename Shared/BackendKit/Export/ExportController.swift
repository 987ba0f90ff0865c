import Foundation
import HTTPTypes
import Hummingbird
import PostgresSupport
import ServiceDefaults

/// `GET /api/export/<part>?format=json|csv&table=`: the service's part of the caller's data export, streamed.
/// JSON is one document of the part's tables; CSV is one table's file (`table`), and without `table` the list of the
/// part's files. A `table` the part does not have is 422 with either format. The gateway composes the parts into `GET /api/export`; a client may also fetch a part itself.
public struct ExportController: Sendable {
    let part: ExportPart
    let pool: PostgresPool

    public init(part: ExportPart, pool: PostgresPool) {
        self.part = part
        self.pool = pool
    }

    public func addRoutes(to router: Router<AppRequestContext>) {
        router.get(RouterPath("/api/export/\(part.name)")) { request, context in try await export(request, context: context) }
    }

    func export(_ request: Request, context: AppRequestContext) async throws -> Response {
        let caller = try CallerIdentity(request)
        let parameters = request.uri.queryParameters
        let format = try ExportFormat(query: parameters.get("format"))
        // A table is one of the part's whatever the format (JSON answers every table and reads none), so that a
        // misspelt one is a 422 before it matters.
        let named = try parameters.get("table").map { file in
            guard let found = part.csvTable(file) else { throw APIError.invalid(["table": "Use one of \(part.csvFiles.joined(separator: ", "))."]) }
            return found
        }
        var table: ExportTable?
        if format == .csv {
            guard let named else {
                return try ExportTableList(part: part.name, tables: part.csvFiles).response(from: request, context: context)
            }
            table = named
        }
        // Reach the database before answering, so that a database down is a 503 in the error shape, not a cut-off body.
        try await pool.query("SELECT 1", logger: context.logger)
        let contentType = table == nil ? "application/json; charset=utf-8" : "text/csv; charset=utf-8; header=present"
        return Response(
            status: .ok, headers: [.contentType: contentType, .cacheControl: "no-store"],
            body: part.body(csvTable: table, userId: caller.userId, pool: pool, logger: context.logger))
    }
}

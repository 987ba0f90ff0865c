import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import NIOHTTP1
import ServiceDefaults
import SyncContracts
import WireJSON

/// The sync routes the gateway answers itself by composing the three areas (profile on auth, meals, metrics):
/// `GET /api/sync/changes`, `GET /api/sync/conflicts` and `POST /api/sync/import`. The routes file gives them the
/// upstream `gateway` (`RouteTable.gatewayUpstream`), so they are matched, need a verified token and are rate limited
/// (`sync` policy) like proxied routes before they reach these handlers. The areas are called in parallel; any area
/// failing fails the whole answer (never a partial page), an area's refusal (4xx) is passed on as it came.
struct SyncController: Sendable {
    let caller: SyncAreaCaller
    /// Largest import body read (the route's `maxBodyBytes` or the gateway's).
    let maxImportBytes: Int

    func addRoutes(to router: Router<GatewayRequestContext>) {
        router.get("/api/sync/changes") { request, context in try await passingRefusals { try await changes(request, context) } }
        router.get("/api/sync/conflicts") { request, context in try await passingRefusals { try await conflicts(request, context) } }
        router.post("/api/sync/import") { request, context in try await passingRefusals { try await importItems(request, context) } }
    }

    /// `GET /api/sync/changes?since=&limit=`: the areas' feeds read from the composite cursor with the same limit and
    /// merged (`SyncChangesMerge`). 410 `sync_cursor_expired` when any area's feed no longer reaches back to it.
    func changes(_ request: Request, _ context: GatewayRequestContext) async throws -> Response {
        try requireCaller(request)
        let parameters = request.uri.queryParameters
        let limit = try SyncFeedQuery(since: nil, limit: parameters.get("limit")).limit
        let cursor = try SyncChangesCursor.decode(parameters.get("since"))
        let answers = await caller.callEach(SyncArea.allCases) { area in
            try await caller.call(area, .GET, "/changes?since=\(cursor[area])&limit=\(limit)", request: request, context: context)
        }
        if answers.values.contains(where: { (try? $0.get().status) == .gone }) { throw SyncFeedQuery.expired }
        var pages: [SyncArea: SyncChangePage<JSONValue>] = [:]
        for area in SyncArea.allCases {
            pages[area] = try Self.answer(of: area, in: answers).decoded(as: SyncChangePage<JSONValue>.self, context: context)
        }
        do {
            return try Self.json(SyncChangesMerge.merge(cursor: cursor, pages: pages, limit: limit).page)
        } catch let error as SyncChangesMerge.MalformedAreaCursor {
            context.logger.warning("sync area answered a nextCursor that is not a seq", metadata: ["area": .string(error.area.rawValue)])
            throw APIError(.badGateway, code: "bad_gateway", message: "The \(error.area.rawValue) feed failed to answer.")
        }
    }

    /// `GET /api/sync/conflicts?limit=&cursor=`: the areas' conflict lists merged newest first
    /// (`SyncConflictsMerge`); an area read to its end is not asked again.
    func conflicts(_ request: Request, _ context: GatewayRequestContext) async throws -> Response {
        try requireCaller(request)
        let parameters = request.uri.queryParameters
        let limit = try Self.conflictsLimit(parameters.get("limit"))
        let cursor = try SyncConflictsCursor.decode(parameters.get("cursor"))
        let asked = SyncArea.allCases.filter { SyncConflictsMerge.askLimit(for: $0, cursor: cursor, limit: limit) != nil }
        let answers = await caller.callEach(asked) { area in
            var query = "/conflicts?limit=\(SyncConflictsMerge.askLimit(for: area, cursor: cursor, limit: limit) ?? limit)"
            if let areaCursor = cursor.position(of: area).cursor {
                query += "&cursor=" + (areaCursor.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")
            }
            return try await caller.call(area, .GET, query, request: request, context: context)
        }
        var pages: [SyncArea: SyncConflictPage<JSONValue>] = [:]
        for area in asked {
            pages[area] = try Self.answer(of: area, in: answers).decoded(as: SyncConflictPage<JSONValue>.self, context: context)
        }
        let merged = SyncConflictsMerge.merge(cursor: cursor, pages: pages, limit: limit)
        return try Self.json(SyncConflictPage(conflicts: merged.conflicts, nextCursor: merged.next?.encoded))
    }

    /// `POST /api/sync/import` `{"meals", "customMeals", "weighIns", "ketones", "water"}`: 1 to 500 items in all, split
    /// to `POST /api/sync/meals/import` (meals and custom meals) and `POST /api/sync/metrics/import` (weigh-ins, ketone
    /// levels and water; only the parts that have items, in parallel, with the client's `Idempotency-Key`); the results
    /// in request order (meals, custom meals, weigh-ins, ketone levels, water) with a summary.
    func importItems(_ request: Request, _ context: GatewayRequestContext) async throws -> Response {
        try requireCaller(request)
        let body = try await Self.decodeImport(request, maxBytes: maxImportBytes)
        try body.validate()
        let encoder = WireJSONEncoder()
        // Sorted keys: the same import makes the same bytes each time, so an area's Idempotency-Key check sees a replay.
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let parts = try [SyncArea.meals: body.mealsPart, .metrics: body.metricsPart].compactMapValues { part in
            try part.map { ByteBuffer(bytes: try encoder.encode($0)) }
        }
        let answers = await caller.callEach(Array(parts.keys)) { area in
            try await caller.call(area, .POST, "/import", body: parts[area], request: request, context: context)
        }
        var results: [SyncArea: [SyncImportResult]] = [:]
        for area in SyncArea.allCases where parts[area] != nil {
            results[area] = try Self.answer(of: area, in: answers).decoded(as: SyncImportResponse.self, context: context).results
        }
        var response = try Self.json(SyncImportResponse(results: (results[.meals] ?? []) + (results[.metrics] ?? [])))
        // As every service answers a write with the key: `true` when the import is a replay (every area replayed it),
        // else `false`.
        if request.headers[.idempotencyKey] != nil {
            response.headers[.idempotentReplayed] = answers.values.allSatisfy({ (try? $0.get().isIdempotentReplay) == true }) ? "true" : "false"
        }
        return response
    }

    /// The conflict list's `limit`: 1 to 100, default 50; 422 otherwise.
    static func conflictsLimit(_ text: String?) throws -> Int {
        guard let text else { return 50 }
        guard let value = Int(text), (1...100).contains(value) else { throw APIError.invalid(["limit": "Use 1 to 100."]) }
        return value
    }

    /// Reads the import body: 415 for another content type, 413 over `maxBytes`, 400 `malformed_body` for bytes that are
    /// not JSON, 422 when it is not `{"meals": [...], "weighIns": [...], ...}` (`StrictJSONDecoder`).
    static func decodeImport(_ request: Request, maxBytes: Int) async throws -> SyncImportRequest {
        if let contentType = request.headers[.contentType], !contentType.lowercased().hasPrefix("application/json") {
            throw APIError(.unsupportedMediaType, code: "unsupported_media_type", message: "Send the body as application/json.")
        }
        if let declared = request.headers[.contentLength].flatMap(Int.init), declared > maxBytes {
            throw APIError(.contentTooLarge, code: "payload_too_large", message: "The request body is larger than \(maxBytes) bytes.")
        }
        let bytes = try await request.body.collect(upTo: maxBytes)
        return try StrictJSONDecoder.decode(SyncImportRequest.self, from: Data(buffer: bytes))
    }

    /// 401 when the route reached the handler without a verified caller (a routes file that made it public).
    private func requireCaller(_ request: Request) throws {
        guard request.headers[CallerIdentity.userIdHeader] != nil else {
            throw APIError(.unauthorized, code: "unauthenticated", message: "Sign in to use this route.")
        }
    }

    /// Runs `body`, answering an area's refusal as the area sent it.
    private func passingRefusals(_ body: () async throws -> Response) async throws -> Response {
        do {
            return try await body()
        } catch let refusal as SyncAreaRefusal {
            return refusal.answer.response
        }
    }

    /// The answer of `area` among the ones `callEach` collected; one missing (never expected) is 503, as an area down.
    private static func answer(of area: SyncArea, in answers: [SyncArea: Result<SyncAreaAnswer, any Error>]) throws -> SyncAreaAnswer {
        guard let answer = answers[area] else { throw UpstreamClient.unavailable(area.rawValue) }
        return try answer.get()
    }

    /// `value` as a 200 JSON answer; times with milliseconds, as the areas stamp them.
    static func json(_ value: some Encodable) throws -> Response {
        let data = try encoder.encode(value)
        return Response(
            status: .ok, headers: [.contentType: "application/json; charset=utf-8"], body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// Sorted keys: the same composed answer is the same bytes (an import replayed with its `Idempotency-Key`).
    private static let encoder: JSONEncoder = {
        let encoder = WireJSONEncoder()
        encoder.outputFormatting = .sortedKeys
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true)))
        }
        return encoder
    }()
}

extension HTTPField.Name {
    /// On an import sent with `Idempotency-Key`: `true` when every area answered it as a replay of an earlier one with
    /// the same key, else `false`.
    static let idempotentReplayed = HTTPField.Name("Idempotent-Replayed")!
    /// The client's key for a safe replay, passed to the areas.
    static let idempotencyKey = HTTPField.Name("Idempotency-Key")!
}

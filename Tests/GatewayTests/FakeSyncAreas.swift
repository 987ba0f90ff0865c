import Foundation
import HTTPTypes
import Hummingbird
import ServiceDefaults
import SyncContracts
import Synchronization

/// The three sync areas as one fake upstream, answering as the contract says: `changes` from an in-memory feed per
/// area, `conflicts` (none), and `import` (every item `created`). It records what reached it, so tests can check
/// the identity headers and the split of an import.
final class FakeSyncAreas: Sendable {
    /// One request the fake received.
    struct Received: Sendable {
        var path: String
        var headers: [String: String]
        var body: String
    }

    /// Each area's feed: the seqs of its changes.
    let feeds: [String: [Int64]]
    /// Areas that answer 410 `sync_cursor_expired`.
    let expired: Set<String>
    /// Areas that answer 500.
    let failing: Set<String>
    /// Areas that refuse imports with this 422 body.
    let refusingImports: Set<String>
    private let received = Mutex<[Received]>([])

    init(feeds: [String: [Int64]] = [:], expired: Set<String> = [], failing: Set<String> = [], refusingImports: Set<String> = []) {
        self.feeds = feeds
        self.expired = expired
        self.failing = failing
        self.refusingImports = refusingImports
    }

    /// Every request received so far.
    var requests: [Received] { received.withLock { $0 } }

    /// The fake as an application on a free port.
    func application() -> some ApplicationProtocol {
        let router = Router()
        router.get("/api/sync/:area/changes") { request, context -> Response in
            let area = try context.parameters.require("area")
            try await self.record(request)
            if let failure = self.failure(area) { return failure }
            if self.expired.contains(area) {
                return ErrorBody(code: "sync_cursor_expired", message: "expired", requestId: "x").response(status: .gone)
            }
            let query = try SyncFeedQuery(since: request.uri.queryParameters.get("since"), limit: request.uri.queryParameters.get("limit"))
            let after = (self.feeds[area] ?? []).filter { $0 > query.since }
            let changes = after.prefix(query.limit).map { seq in
                SyncChange<JSONValue>.live(
                    seq: seq, type: area, id: "\(area)-\(seq)", version: 1, modifiedAt: Date(timeIntervalSince1970: 1_790_000_000.125),
                    data: .object(["name": .string("\(area) \(seq)")]))
            }
            let page = SyncChangePage(
                changes: Array(changes), nextCursor: String(changes.last?.seq ?? query.since), hasMore: after.count > query.limit)
            return try Self.json(page)
        }
        router.get("/api/sync/:area/conflicts") { request, context -> Response in
            let area = try context.parameters.require("area")
            try await self.record(request)
            if let failure = self.failure(area) { return failure }
            return try Self.json(SyncConflictPage<JSONValue>(conflicts: [], nextCursor: nil))
        }
        router.post("/api/sync/:area/import") { request, context -> Response in
            let area = try context.parameters.require("area")
            let body = try await self.record(request)
            if let failure = self.failure(area) { return failure }
            if self.refusingImports.contains(area) {
                return ErrorBody(code: "validation_failed", message: "refused by \(area)", requestId: "x").response(status: .unprocessableContent)
            }
            struct Items: Decodable {
                var meals: [[String: JSONValue]]?
                var weighIns: [[String: JSONValue]]?
            }
            let items = try JSONDecoder().decode(Items.self, from: Data(body.utf8))
            var results = (items.meals ?? []).map { item -> SyncImportResult in
                guard case .string(let id)? = item["id"] else {
                    return SyncImportResult(type: "meal", id: "", status: .rejected, error: .init(code: "validation_failed", message: "id"))
                }
                return SyncImportResult(type: "meal", id: id, status: .created)
            }
            results += (items.weighIns ?? []).map { item in
                guard case .string(let date)? = item["date"] else { return SyncImportResult(type: "weigh_in", id: "", status: .rejected) }
                return SyncImportResult(type: "weigh_in", id: date, status: date.hasSuffix("01") ? .alreadyPresent : .updated)
            }
            var response = try Self.json(SyncImportResponse(results: results))
            if request.headers[HTTPField.Name("Idempotency-Key")!] == "replayed" { response.headers[HTTPField.Name("Idempotent-Replayed")!] = "true" }
            return response
        }
        return Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
    }

    @discardableResult
    private func record(_ request: Request) async throws -> String {
        let body = String(buffer: try await request.body.collect(upTo: 1 << 20))
        var headers: [String: String] = [:]
        for field in request.headers { headers[field.name.canonicalName] = field.value }
        let path = request.uri.description
        received.withLock { $0.append(Received(path: path, headers: headers, body: body)) }
        return body
    }

    private func failure(_ area: String) -> Response? {
        failing.contains(area) ? ErrorBody(code: "internal_error", message: "boom", requestId: "x").response(status: .internalServerError) : nil
    }

    private static func json(_ value: some Encodable) throws -> Response {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true)))
        }
        return Response(
            status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(bytes: try encoder.encode(value))))
    }
}

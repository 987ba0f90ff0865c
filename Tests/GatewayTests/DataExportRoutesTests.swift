import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import ServiceDefaults
import Testing

@testable import Gateway

/// `GET /api/export` through the whole gateway (route match, token, rate limit) against fake export parts: the
/// composition of the JSON document and the zip, the caller's identity reaching every part, and what a client gets when
/// a part fails before or after the first byte.
@Suite("Gateway data export against fake parts")
struct DataExportRoutesTests {
    let tokens = TokenFactory()

    /// A gateway whose six part upstreams are `parts`, on a clock stopped at `exportedAt` (after the tokens were made,
    /// so they are valid).
    func withGateway(
        _ parts: FakeExportParts, exportedAt: Date = Date(), _ body: @Sendable @escaping (any TestClientProtocol) async throws -> Void
    ) async throws {
        try await parts.application().test(.live) { upstream in
            let base = URL(string: "http://127.0.0.1:\(upstream.port!)")!
            let names = ["auth", "meals", "foods", "metrics", "trends", "sharing"]
            let sections = ["account", "meals", "foods", "metrics", "trends", "sharing"]
            let routes = RouteTable(
                upstreams: Dictionary(uniqueKeysWithValues: names.map { ($0, [base]) }),
                routes: [.init(prefix: "/api/export", upstream: RouteTable.gatewayUpstream, isPublic: false, rateLimit: "export")]
                    + zip(sections, names).map { .init(prefix: "/api/export/\($0)", upstream: $1, isPublic: false, rateLimit: "export") },
                rateLimits: ["export": RateLimitPolicy(name: "export", limit: 100, windowSeconds: 3600, per: .user)])
            try routes.validate()
            let clock = GatewayClock(date: { exportedAt }, instant: { ContinuousClock.now })
            try await tokens.withGateway(settings: try tokens.settings(routes: routes), clock: clock, body)
        }
    }

    func authorized() async throws -> HTTPFields {
        [.authorization: "Bearer \(try await tokens.token())"]
    }

    @Test("JSON: the parts' documents in order under their names, with the time and format; every part asked as the caller")
    func jsonDocument() async throws {
        let parts = FakeExportParts()
        let headers = try await authorized()
        let userId = tokens.userId.uuidString.lowercased()
        let exportedAt = Date()
        let day = exportedAt.formatted(Date.ISO8601FormatStyle().year().month().day())
        let time = exportedAt.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
        try await withGateway(parts, exportedAt: exportedAt) { gateway in
            try await gateway.execute(uri: "/api/export", method: .get, headers: headers) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentDisposition] == "attachment; filename=\"nutritionai-export-\(day).json\"")
                #expect(response.headers[.cacheControl] == "no-store")
                let text = String(buffer: response.body)
                #expect(
                    text == #"{"exportedAt":"\#(time)","format":1,"account":{"accountRows":[{"n":1},{"n":2}]},"#
                        + #""meals":{"mealsRows":[{"n":1},{"n":2}]},"foods":{"foodsRows":[{"n":1},{"n":2}]},"metrics":{"metricsRows":[{"n":1},{"n":2}]},"#
                        + #""trends":{"trendsRows":[{"n":1},{"n":2}]},"sharing":{"sharingRows":[{"n":1},{"n":2}]}}"#)
            }
        }
        #expect(
            Set(parts.requests.map(\.path))
                == Set(["account", "meals", "foods", "metrics", "trends", "sharing"].map { "/api/export/\($0)?format=json" }))
        #expect(parts.requests.allSatisfy { $0.userId == userId })
    }

    @Test("CSV: a zip of each part's files, named after their tables, that Python's zipfile reads")
    func csvZip() async throws {
        let headers = try await authorized()
        try await withGateway(FakeExportParts()) { gateway in
            try await gateway.execute(uri: "/api/export?format=csv", method: .get, headers: headers) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "application/zip")
                let reading = try ZipWriterTests.readWithPython(Array(response.body.readableBytesView))
                #expect(reading.bad == nil)
                #expect(reading.members.map(\.name) == ["account", "meals", "foods", "metrics", "trends", "sharing"].map { "\($0)_rows.csv" })
                #expect(reading.members.first?.sha256 == (try ZipWriterTests.sha256Hex(Array("name\r\naccount_rows 1\r\n".utf8))))
            }
        }
    }

    @Test("a part failing before the first byte is 503 upstream_unavailable in the error shape; an unknown format is 422")
    func failureBeforeTheFirstByte() async throws {
        let headers = try await authorized()
        try await withGateway(FakeExportParts(failing: ["trends"])) { gateway in
            for uri in ["/api/export?format=json", "/api/export?format=csv"] {
                try await gateway.execute(uri: uri, method: .get, headers: headers) { response in
                    #expect(response.status == .serviceUnavailable, "\(uri)")
                    #expect(response.headers[.retryAfter] != nil)
                    let body = try JSONDecoder().decode(ErrorBody.self, from: Data(buffer: response.body))
                    #expect(body.error.code == "upstream_unavailable")
                }
            }
            try await gateway.execute(uri: "/api/export?format=xml", method: .get, headers: headers) { response in
                #expect(response.status == .unprocessableContent)
            }
        }
    }

    @Test("a part failing mid-stream cuts the download off: the client gets an error, never a complete-looking export")
    func failureMidStream() async throws {
        let headers = try await authorized()
        try await withGateway(FakeExportParts(cutting: ["metrics"])) { gateway in
            for uri in ["/api/export?format=json", "/api/export?format=csv"] {
                await #expect(throws: (any Error).self, "\(uri) ended as if complete") {
                    try await gateway.execute(uri: uri, method: .get, headers: headers) { _ in }
                }
            }
        }
        // A later file that cannot be opened once the zip has started: the zip is cut off too.
        try await withGateway(FakeExportParts(failingFiles: ["trends"])) { gateway in
            await #expect(throws: (any Error).self, "the zip ended as if complete") {
                try await gateway.execute(uri: "/api/export?format=csv", method: .get, headers: headers) { _ in }
            }
        }
    }

    @Test("without a token the export is 401 and no part is asked")
    func unauthenticated() async throws {
        let parts = FakeExportParts()
        try await withGateway(parts) { gateway in
            try await gateway.execute(uri: "/api/export", method: .get) { response in
                #expect(response.status == .unauthorized)
            }
        }
        #expect(parts.requests.isEmpty)
    }
}

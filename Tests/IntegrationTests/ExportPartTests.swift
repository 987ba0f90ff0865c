import BackendKit
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import ServiceDefaults
import TestSupport
import Testing

@testable import MetricsService

/// One service's export part called as the gateway calls it (`X-User-Id`, `X-Session-Id`), against the real metrics
/// service and PostgreSQL: the caller's rows only, both formats, the file list, and the refusals.
@Suite("A service's export part", .serialized, .enabled(if: TestEnvironment.isAvailable))
struct ExportPartTests {
    /// The identity headers the gateway sets for a verified caller.
    static func caller(_ userId: UUID) -> HTTPFields {
        [CallerIdentity.userIdHeader: userId.uuidString.lowercased(), CallerIdentity.sessionIdHeader: UUID().uuidString.lowercased()]
    }

    @Test("the metrics part holds the caller's days only, as JSON and as guarded RFC 4180 CSV; a new user's part is empty")
    func metricsPart() async throws {
        let config = try await TestServices.config(service: "metrics")
        let metrics = try MetricsService.buildApplication(config: ConfigReaderFactory.make(config), logger: TestEnvironment.logger)
        try await withRunning(metrics.infrastructure.services + metrics.services) {
            try await TestServices.live([("metrics", metrics)]) { clients in
                let service = clients["metrics"]!
                let ada = Self.caller(UUID())
                let bo = Self.caller(UUID())
                var json = ada
                json[.contentType] = "application/json"
                for body in [#"{"date":"2026-03-09","weight":72.5,"notes":"=1+1, \"after run\""}"#, #"{"date":"2026-03-10","weight":72.1}"#] {
                    let answer = try await service.execute(uri: "/api/metrics/weight", method: .post, headers: json, body: ByteBuffer(string: body))
                    #expect(answer.status == .created, "\(String(buffer: answer.body))")
                }
                var boJSON = bo
                boJSON[.contentType] = "application/json"
                let boWeight = try await service.execute(
                    uri: "/api/metrics/weight", method: .post, headers: boJSON, body: ByteBuffer(string: #"{"date":"2026-03-10","weight":99.9}"#))
                #expect(boWeight.status == .created)

                let document = try await service.execute(uri: "/api/export/metrics?format=json", method: .get, headers: ada)
                #expect(document.status == .ok && document.headers[.contentType]?.hasPrefix("application/json") == true)
                struct Part: Decodable {
                    struct Day: Decodable {
                        var day: String
                        var weightKg: Double?
                        var notes: String?
                        var updatedAt: String
                    }
                    var bodyMetrics: [Day]
                    var syncConflicts: [[String: String]]
                }
                let part = try JSONDecoder().decode(Part.self, from: Data(buffer: document.body))
                #expect(part.bodyMetrics.map(\.day) == ["2026-03-09", "2026-03-10"] && part.bodyMetrics.map(\.weightKg) == [72.5, 72.1])
                #expect(part.bodyMetrics.first?.notes == "=1+1, \"after run\"", "JSON keeps the text as typed")
                #expect(part.bodyMetrics.allSatisfy { $0.updatedAt.hasSuffix("Z") && $0.updatedAt.count == 24 }, "times are UTC with milliseconds")
                #expect(!String(buffer: document.body).contains("99.9"), "another user's weight is in the part")

                let files = try await service.execute(uri: "/api/export/metrics?format=csv", method: .get, headers: ada)
                struct FileList: Decodable, Equatable {
                    var part: String
                    var tables: [String]
                }
                let list = try JSONDecoder().decode(FileList.self, from: Data(buffer: files.body))
                #expect(list == FileList(part: "metrics", tables: ["body_metrics", "water_entries", "body_metrics_sync_conflicts"]))
                let csv = try await service.execute(uri: "/api/export/metrics?format=csv&table=body_metrics", method: .get, headers: ada)
                #expect(csv.headers[.contentType]?.hasPrefix("text/csv") == true)
                let lines = String(buffer: csv.body).components(separatedBy: "\r\n")
                #expect(lines.first == "day,weightKg,ketones,notes,version,updatedAt,modifiedAt")
                #expect(lines.count == 4 && lines.last == "", "a header, two days and the final CRLF: \(lines)")
                #expect(lines[1].hasPrefix("2026-03-09,72.5,,\"'=1+1, \"\"after run\"\"\","), "\(lines[1])")

                let newcomer = try await service.execute(uri: "/api/export/metrics", method: .get, headers: Self.caller(UUID()))
                #expect(String(buffer: newcomer.body) == #"{"bodyMetrics":[],"waterEntries":[],"syncConflicts":[]}"#)
                let emptyCSV = try await service.execute(
                    uri: "/api/export/metrics?format=csv&table=body_metrics", method: .get, headers: Self.caller(UUID()))
                #expect(String(buffer: emptyCSV.body) == "day,weightKg,ketones,notes,version,updatedAt,modifiedAt\r\n")

                for (uri, status) in [
                    ("/api/export/metrics?format=csv&table=meals", HTTPResponse.Status.unprocessableContent),
                    ("/api/export/metrics?table=meals", .unprocessableContent),
                    ("/api/export/metrics?format=json&table=", .unprocessableContent),
                    ("/api/export/metrics?format=pdf", .unprocessableContent),
                ] {
                    let refused = try await service.execute(uri: uri, method: .get, headers: ada)
                    #expect(refused.status == status, "\(uri)")
                    #expect(try JSONDecoder().decode(ErrorBody.self, from: Data(buffer: refused.body)).error.code == "validation_failed")
                }
                let anonymous = try await service.execute(uri: "/api/export/metrics", method: .get)
                #expect(anonymous.status == .unauthorized)
            }
        }
    }

    @Test("a part of thousands of rows, written in many chunks, arrives whole in both formats")
    func largePart() async throws {
        let config = try await TestServices.config(service: "metrics")
        let metrics = try MetricsService.buildApplication(config: ConfigReaderFactory.make(config), logger: TestEnvironment.logger)
        try await withRunning(metrics.infrastructure.services + metrics.services) {
            try await TestServices.live([("metrics", metrics)]) { clients in
                let userId = UUID()
                // 3,000 days (about 300 KB of CSV, ten times the chunk size), written straight into the schema.
                try await metrics.infrastructure.postgres.query(
                    """
                    INSERT INTO daily_metrics (user_id, day, weight_kg, notes, version, updated_at, change_seq, modified_at)
                    SELECT \(userId), date '2010-01-01' + g, 60 + g % 40, 'day ' || g || ', as noted', 1, now(), g, now()
                    FROM generate_series(1, 3000) AS g
                    """, logger: TestEnvironment.logger)
                let service = clients["metrics"]!
                let csv = try await service.execute(
                    uri: "/api/export/metrics?format=csv&table=body_metrics", method: .get, headers: Self.caller(userId))
                let lines = String(buffer: csv.body).components(separatedBy: "\r\n")
                #expect(lines.count == 3002 && lines.last == "", "a header, 3,000 days and the final CRLF; got \(lines.count) lines")
                #expect(lines[1].hasPrefix("2010-01-02,61,,\"day 1, as noted\",") && lines[3000].hasPrefix("2018-03-20,60,,\"day 3000, as noted\","))
                let document = try await service.execute(uri: "/api/export/metrics?format=json", method: .get, headers: Self.caller(userId))
                struct Days: Decodable {
                    struct Day: Decodable { var day: String }
                    var bodyMetrics: [Day]
                }
                let days = try JSONDecoder().decode(Days.self, from: Data(buffer: document.body)).bodyMetrics
                #expect(days.count == 3000 && Set(days.map(\.day)).count == 3000)
            }
        }
    }
}

import ContractTesting
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import ServiceDefaults
import TestSupport
import Testing

@testable import MetricsService

/// The metrics service's routes (weights and ketones, water, the changes feed, the import) on an in-memory store, for
/// one user who lives in the zone of `day`, at `day`'s now. Every answer is checked against the OpenAPI document.
struct MetricsRoutesHarness {
    let day: TestToday
    let userId = UUID()
    let store: InMemoryBodyMetricsStore

    /// Routes at `day`'s now for a user whose profile (zone and kilograms) arrived, as `user.profile_updated` brings it.
    init(_ day: TestToday) {
        self.day = day
        let now = day.now
        store = InMemoryBodyMetricsStore(now: { now })
        store.setProfile(MetricsProfile(weightUnit: .kg, timeZone: day.zone, isKnown: true), of: userId)
    }

    func withRoutes(_ body: @Sendable (any TestClientProtocol) async throws -> Void) async throws {
        let router = ServiceRuntime.makeRouter(service: "metrics", checks: [])
        let now = day.now
        MetricsController(store: store, now: { now }).addRoutes(to: router)
        WaterController(store: store, now: { now }).addRoutes(to: router)
        MetricsSyncController(store: store, now: { now }).addRoutes(to: router)
        MetricsImportController(store: store, now: { now }).addRoutes(to: router)
        try await Application(router: router).test(.router) { client in
            let problems = try await ContractCheckingClient.problems(of: client, body)
            #expect(problems.isEmpty, "answers the OpenAPI document does not describe: \(problems)")
        }
    }

    /// The identity headers the gateway adds after verifying the user's token.
    var headers: HTTPFields {
        [CallerIdentity.userIdHeader: userId.uuidString, CallerIdentity.sessionIdHeader: UUID().uuidString, .contentType: "application/json"]
    }

    func send(_ client: any TestClientProtocol, _ method: HTTPRequest.Method, _ uri: String, _ json: String? = nil) async throws -> TestResponse {
        try await client.execute(uri: uri, method: method, headers: headers, body: json.map { ByteBuffer(string: $0) })
    }

    func decode<T: Decodable>(_ type: T.Type, _ response: TestResponse) throws -> T {
        try JSONDecoder().decode(type, from: Data(buffer: response.body))
    }

    /// The stored day `daysAgo` before today, if any.
    func storedDay(daysAgo: Int) throws -> DailyMetrics? {
        store.day(of: userId, on: try #require(CalendarDate(day.date(daysAgo: daysAgo))))
    }
}

import AsyncHTTPClient
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import NIOHTTP1
import ServiceDefaults

/// Calls the services' export parts for `GET /api/export` with the caller's identity as the proxy passes it
/// (`GatewayHeaders`) and the client's trace context, and hands back their answers unread, so the
/// gateway streams them through without holding them.
struct ExportPartCaller: Sendable {
    /// Where each part is served: its upstream's name, as the routes file routes `/api/export/<part>`.
    let parts: [ExportSection: String]
    let upstreamClient: UpstreamClient
    /// Largest table list read (a part lists a handful of names).
    static let maximumTableListBytes = 64 * 1024

    /// Finds each part's upstream in `routes`; a part without a route is answered 503 when asked.
    init(routes: RouteTable, upstreamClient: UpstreamClient) {
        var parts: [ExportSection: String] = [:]
        for section in ExportSection.allCases {
            if let route = routes.route(for: Substring(section.path)), upstreamClient.serves(route.upstream) {
                parts[section] = route.upstream
            }
        }
        self.parts = parts
        self.upstreamClient = upstreamClient
    }

    /// Sends `GET /api/export/<section>?<query>` for the client request `request` and returns the answer with its body
    /// still to be read. Anything but a 200 is the error the client gets: 503 `upstream_unavailable` for a part that
    /// failed or could not be reached (504 when it timed out), 502 `bad_gateway` for a part that refused the call.
    func open(_ section: ExportSection, query: String, request: Request, context: GatewayRequestContext) async throws -> HTTPClientResponse {
        guard let upstream = parts[section] else {
            context.logger.error("no route for the export part", metadata: ["part": .string(section.rawValue)])
            throw UpstreamClient.unavailable(section.rawValue)
        }
        var upstreamRequest = HTTPClientRequest(url: section.path + "?" + query)
        upstreamRequest.method = .GET
        for name in ["traceparent", "tracestate"] {
            if let fieldName = HTTPField.Name(name), let value = request.headers[fieldName] {
                upstreamRequest.headers.add(name: name, value: value)
            }
        }
        GatewayHeaders.copy(from: request.headers, to: &upstreamRequest.headers)
        let response = try await upstreamClient.send(upstreamRequest, upstream: upstream, context: context)
        guard response.status == .ok else {
            context.logger.warning(
                "export part failed before its first byte",
                metadata: ["part": .string(section.rawValue), "status": .stringConvertible(response.status.code)])
            switch response.status.code {
            case 504: throw UpstreamClient.timedOut(upstream)
            case 500..<600: throw UpstreamClient.unavailable(upstream)
            default: throw UpstreamClient.failed(upstream)
            }
        }
        return response
    }

    /// The CSV files of `section` (`GET /api/export/<section>?format=csv`), in zip order.
    func csvFiles(of section: ExportSection, request: Request, context: GatewayRequestContext) async throws -> [String] {
        struct TableList: Decodable { var tables: [String] }
        let response = try await open(section, query: "format=csv", request: request, context: context)
        let upstream = parts[section] ?? section.rawValue
        do {
            let body = try await response.body.collect(upTo: Self.maximumTableListBytes)
            return try JSONDecoder().decode(TableList.self, from: Data(buffer: body)).tables
        } catch {
            context.logger.warning("export part answered a table list that does not read", metadata: ["part": .string(section.rawValue)])
            if error is DecodingError {
                throw UpstreamClient.failed(upstream)
            }
            throw UpstreamClient.gatewayError(for: error, upstream: upstream, context: context)
        }
    }

    /// Runs `call` for every section at once and returns the results in section order; the first failure (in section
    /// order) is thrown once all have ended, so no part is left running.
    func each<Value: Sendable>(
        _ call: @escaping @Sendable (ExportSection) async throws -> Value
    ) async throws -> [(ExportSection, Value)] {
        let results = await ConcurrentCalls.results(for: ExportSection.allCases, call)
        return try ExportSection.allCases.map { section in
            guard let result = results[section] else { throw UpstreamClient.unavailable(section.rawValue) }
            return (section, try result.get())
        }
    }
}

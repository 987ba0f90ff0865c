import Foundation
import Hummingbird
import HummingbirdTesting
import ServiceDefaults
import Testing

@testable import Gateway

/// `/docs` and its files, served from a folder of Swagger UI files (fakes here; the real ones and a browser:
/// `Tests/IntegrationTests/APIExplorerTests.swift`).
@Suite("API explorer routes")
struct APIExplorerRoutesTests {
    static func folder(missing: String? = nil) throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("swagger-ui-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for name in APIExplorerController.assets.keys where name != missing {
            try Data("contents of \(name)".utf8).write(to: folder.appendingPathComponent(name))
        }
        return folder
    }

    static func application(_ explorer: APIExplorerController) -> some ApplicationProtocol {
        let router = Router(context: GatewayRequestContext.self)
        router.add(middleware: ErrorMiddleware())
        explorer.addRoutes(to: router)
        return Application(router: router)
    }

    @Test("the page loads Swagger UI and the gateway's own start script, which opens /openapi.json; files by name, with validators")
    func servesThePageAndItsFiles() async throws {
        let explorer = try APIExplorerController(directory: try Self.folder())
        try await Self.application(explorer).test(.router) { client in
            let page = try await client.execute(uri: "/docs", method: .get)
            #expect(page.status == .ok && page.headers[.contentType] == "text/html; charset=utf-8")
            let html = String(buffer: page.body)
            #expect(html.contains(#"src="/docs/swagger-ui-bundle.js""#) && html.contains(#"src="/docs/start.js""#))
            #expect(page.headers[.contentSecurityPolicy]?.hasPrefix("default-src 'self'") == true)
            let start = try await client.execute(uri: "/docs/start.js", method: .get)
            #expect(String(buffer: start.body).contains(#"url: "/openapi.json""#))
            let bundle = try await client.execute(uri: "/docs/swagger-ui-bundle.js", method: .get)
            #expect(String(buffer: bundle.body) == "contents of swagger-ui-bundle.js")
            #expect(bundle.headers[.contentType] == "text/javascript; charset=utf-8")
            let etag = try #require(bundle.headers[.eTag])
            let again = try await client.execute(uri: "/docs/swagger-ui-bundle.js", method: .get, headers: [.ifNoneMatch: etag])
            #expect(again.status == .notModified && again.body.readableBytes == 0)
            for path in ["/docs/index.css", "/docs/..%2F..%2Fetc%2Fpasswd", "/docs/swagger-editor-bundle.js"] {
                let other = try await client.execute(uri: path, method: .get)
                #expect(other.status == .notFound, "\(path)")
            }
        }
    }

    @Test("without Swagger UI installed /docs is a 404 saying so; a folder that lacks a file stops the start")
    func notInstalled() async throws {
        try await Self.application(.notInstalled).test(.router) { client in
            let answer = try await client.execute(uri: "/docs", method: .get)
            #expect(answer.status == .notFound)
            #expect(String(buffer: answer.body).contains("GATEWAY_DOCS_DIRECTORY"))
        }
        #expect(throws: (any Error).self) { try APIExplorerController(directory: try Self.folder(missing: "swagger-ui.css")) }
    }
}

import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing

@testable import SharingService

@Suite("Public caching")
struct PublicResponseTests {
    /// Answers `body` through a real router, as the controllers do.
    func answer(expiresIn seconds: Double, lifetime: Int, ifNoneMatch: String? = nil) async throws -> (HTTPResponse.Status, HTTPFields) {
        let now = Date()
        let router = Router()
        router.get("/x") { request, _ in
            PublicResponse.make(
                ByteBuffer(string: "hello"), contentType: "text/plain", expiresAt: now.addingTimeInterval(seconds), lifetime: lifetime,
                now: now, request: request)
        }
        return try await Application(router: router).test(.router) { client in
            var headers: HTTPFields = [:]
            if let ifNoneMatch { headers[.ifNoneMatch] = ifNoneMatch }
            let response = try await client.execute(uri: "/x", method: .get, headers: headers)
            return (response.status, response.headers)
        }
    }

    @Test("max-age is the lifetime, but never past the link's expiry")
    func lifetime() async throws {
        #expect(try await answer(expiresIn: 86_400, lifetime: 60).1[.cacheControl] == "public, max-age=60, must-revalidate")
        #expect(try await answer(expiresIn: 12.7, lifetime: 60).1[.cacheControl] == "public, max-age=12, must-revalidate")
        #expect(try await answer(expiresIn: -5, lifetime: 60).1[.cacheControl] == "public, max-age=0, must-revalidate")
    }

    @Test("a current ETag in If-None-Match gets 304; a stale one gets the body")
    func conditional() async throws {
        let (status, headers) = try await answer(expiresIn: 600, lifetime: 60)
        let tag = try #require(headers[.eTag])
        #expect(status == .ok && headers[.contentType] == "text/plain" && headers[HTTPField.Name("X-Content-Type-Options")!] == "nosniff")
        #expect(try await answer(expiresIn: 600, lifetime: 60, ifNoneMatch: tag).0 == .notModified)
        #expect(try await answer(expiresIn: 600, lifetime: 60, ifNoneMatch: "\"other\", W/\(tag)").0 == .notModified)
        #expect(try await answer(expiresIn: 600, lifetime: 60, ifNoneMatch: "\"other\"").0 == .ok)
    }
}

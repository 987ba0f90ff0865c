import Foundation
import HTTPTypes
import NIOCore
import Testing

@testable import MealsService

/// Photos of meals at the router on an in-memory store: attach, replace and delete as meal writes, the owner's read,
/// the signed photo and thumbnail URLs and every way they are refused, and the upload limits.
@Suite("Meal photo routes on an in-memory store")
struct MealPhotoRoutesTests {
    /// Bytes a JPEG starts with, then `size` bytes in all.
    static func jpeg(size: Int = 2_000, fill: UInt8 = 7) -> ByteBuffer {
        ByteBuffer(bytes: [0xFF, 0xD8, 0xFF, 0xE0] + [UInt8](repeating: fill, count: size - 4))
    }

    /// The path and query of a signed URL in an answer.
    static func local(_ url: Any?) throws -> String {
        let text = try #require(url as? String)
        let components = try #require(URLComponents(string: text))
        return components.path + (components.query.map { "?" + $0 } ?? "")
    }

    @Test("a photo attached to a meal is a new version with signed photo and thumbnail URLs; the owner and the URLs read its bytes")
    func attachAndRead() async throws {
        let harness = MealsRouterHarness()
        try await harness.withRoutes { client in
            let meal = try await client.createMeal()
            let photo = Self.jpeg()
            let attached = try await client.call(.put, "/api/meals/\(meal.id)/photo", headers: [.contentType: "image/jpeg"], body: photo)
            #expect(attached.status == .ok && attached.number("version") == 2 && attached.json["thumbnail"] as? String == "ready")
            let owners = try await client.call(.get, "/api/meals/\(meal.id)/photo")
            #expect(owners.status == .ok && owners.body == photo && owners.headers[.contentType] == "image/jpeg")
            #expect(
                owners.headers[.cacheControl] == "private, max-age=3600" && owners.headers[HTTPField.Name("X-Content-Type-Options")!] == "nosniff")
            let signed = try await client.call(.get, try Self.local(attached.json["photoUrl"]), as: harness.stranger)
            #expect(signed.status == .ok && signed.body == photo, "a signed URL needs no owner")
            let thumbnail = try await client.call(.get, try Self.local(attached.json["thumbnailUrl"]))
            #expect(thumbnail.status == .ok && thumbnail.headers[.contentType] == "image/jpeg")
            let listed = try await client.call(.get, "/api/meals").list("meals").first
            #expect(listed?["photoUrl"] as? String != nil && listed?["thumbnail"] as? String == "ready")
        }
    }

    @Test("replacing gives the photo a new URL and the old one is 404; deleting keeps the meal; deleting again changes nothing")
    func replaceAndDelete() async throws {
        let harness = MealsRouterHarness()
        try await harness.withRoutes { client in
            let meal = try await client.createMeal()
            let path = "/api/meals/\(meal.id)/photo"
            let first = try await client.call(.put, path, headers: [.contentType: "image/jpeg"], body: Self.jpeg(fill: 1))
            let second = try await client.call(.put, path, headers: [.contentType: "application/octet-stream"], body: Self.jpeg(fill: 2))
            #expect(second.status == .ok && second.number("version") == 3)
            let oldURL = try Self.local(first.json["photoUrl"])
            #expect(try await client.call(.get, oldURL).status == .notFound)
            #expect(try await client.call(.get, try Self.local(second.json["photoUrl"])).body == Self.jpeg(fill: 2))
            #expect(second.json["hasPhoto"] as? Bool == true, "a meal with a photo says so, as history and the events do")
            let removed = try await client.call(.delete, path)
            #expect(removed.status == .ok && removed.json["photoUrl"] == nil && removed.number("version") == 4)
            #expect(removed.json["hasPhoto"] as? Bool == false)
            #expect(try await client.call(.get, "/api/meals/\(meal.id)").json["hasPhoto"] as? Bool == false)
            #expect(meal.json["hasPhoto"] as? Bool == false, "a meal logged without a photo says so")
            #expect(try await client.call(.get, path).status == .notFound)
            #expect(try await client.call(.delete, path).number("version") == 4, "no photo to remove: no new version")
            #expect(try await client.call(.get, "/api/meals/\(meal.id)").status == .ok, "the meal stays")
        }
    }

    @Test("a photo write with a stale If-Match is 409; one older than the stored meal's modifiedAt is kept out")
    func photoWriteConditions() async throws {
        let harness = MealsRouterHarness()
        try await harness.withRoutes { client in
            let meal = try await client.createMeal(extra: #","modifiedAt":"2026-05-10T11:00:00Z""#)
            let path = "/api/meals/\(meal.id)/photo"
            let stale = try await client.call(.put, path, headers: [.contentType: "image/jpeg", .ifMatch: "\"7\""], body: Self.jpeg())
            #expect(stale.status == .conflict && stale.errorCode == "version_conflict")
            let older = try await client.call(
                .put, path + "?modifiedAt=2026-05-10T10:00:00Z", headers: [.contentType: "image/jpeg"], body: Self.jpeg())
            #expect(older.status == .ok && older.json["conflict"] as? String == "stale_write_ignored" && older.json["photoUrl"] == nil)
        }
    }

    @Test("signed URLs: unsigned 403, a changed signature 403, expired 403, an unknown photo 404, each in the error shape")
    func signedURLRefusals() async throws {
        let harness = MealsRouterHarness()
        try await harness.withRoutes { client in
            let meal = try await client.createMeal()
            let attached = try await client.call(.put, "/api/meals/\(meal.id)/photo", headers: [.contentType: "image/jpeg"], body: Self.jpeg())
            let url = try Self.local(attached.json["photoUrl"])
            let bare = String(url.prefix { $0 != "?" })
            let unsigned = try await client.call(.get, bare)
            #expect(unsigned.status == .forbidden && unsigned.errorCode == "photo_url_unsigned")
            let tampered = try await client.call(.get, url.replacingOccurrences(of: "sig=", with: "sig=A"))
            #expect(tampered.status == .forbidden && tampered.errorCode == "photo_url_invalid")
            let thumbnailWithPhotoSignature = try await client.call(.get, bare + "/thumbnail?" + url.split(separator: "?")[1])
            #expect(thumbnailWithPhotoSignature.status == .forbidden, "a photo's signature does not open its thumbnail")
            #expect(try await client.call(.get, "/media/photos/not-a-photo").status == .notFound)
            harness.advance(seconds: 3600)
            let expired = try await client.call(.get, url)
            #expect(expired.status == .forbidden && expired.errorCode == "photo_url_expired")
        }
    }

    @Test("a photo whose key was dropped from the settings is 503 photo_unreadable for its owner and on its URLs; the meal still reads")
    func unreadablePhoto() async throws {
        let harness = MealsRouterHarness()
        try await harness.withRoutes { client in
            let meal = try await client.createMeal()
            let attached = try await client.call(.put, "/api/meals/\(meal.id)/photo", headers: [.contentType: "image/jpeg"], body: Self.jpeg())
            let photoURL = try Self.local(attached.json["photoUrl"])
            let photoId = try #require(UUID(uuidString: String(photoURL.dropFirst("/media/photos/".count).prefix(36))))
            harness.store.loseKey(ofPhoto: photoId)
            for uri in ["/api/meals/\(meal.id)/photo", photoURL, try Self.local(attached.json["thumbnailUrl"])] {
                let answer = try await client.call(.get, uri)
                #expect(answer.status == .serviceUnavailable && answer.errorCode == "photo_unreadable", "\(uri) answered \(answer.status)")
            }
            #expect(try await client.call(.get, "/api/meals/\(meal.id)").status == .ok)
        }
    }

    @Test("uploads: over the limit is 413, a non-image 415, an empty body 422, and without a photo key 503; nothing is stored")
    func uploadRefusals() async throws {
        let harness = MealsRouterHarness()
        try await harness.withRoutes { client in
            let meal = try await client.createMeal()
            let path = "/api/meals/\(meal.id)/photo"
            let large = try await client.call(
                .put, path, headers: [.contentType: "image/jpeg"], body: Self.jpeg(size: MealsRouterHarness.maxImageBytes + 1))
            #expect(large.status == .contentTooLarge && large.errorCode == "payload_too_large")
            let text = try await client.call(.put, path, headers: [.contentType: "image/png"], body: ByteBuffer(string: "not a picture"))
            #expect(text.status == .unsupportedMediaType && text.errorCode == "unsupported_image_type")
            let empty = try await client.call(.put, path, headers: [.contentType: "image/jpeg"], body: ByteBuffer())
            #expect(empty.status == .unprocessableContent && empty.details["image"] != nil)
            let json = try await client.call(.put, path, json: #"{"notImage":true}"#)
            #expect(json.status == .unprocessableContent)
            #expect(try await client.call(.get, "/api/meals/\(meal.id)").number("version") == 1)
        }
        let unkeyed = MealsRouterHarness(photosConfigured: false)
        try await unkeyed.withRoutes { client in
            let meal = try await client.createMeal()
            let refused = try await client.call(.put, "/api/meals/\(meal.id)/photo", headers: [.contentType: "image/jpeg"], body: Self.jpeg())
            #expect(refused.status == .serviceUnavailable && refused.errorCode == "photos_not_configured")
        }
    }
}

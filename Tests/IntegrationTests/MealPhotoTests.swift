import BackendKit
import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import PostgresNIO
import PostgresSupport
import ServiceDefaults
import TestSupport
import Testing

@testable import MealsService

/// Photos on any meal through the gateway: attaching, replacing and deleting a photo as meal writes, the signed
/// short-lived photo URLs that work without a bearer token, and the `deletePhotosAfterDays` clean-up.
@Suite("Meal photos", .serialized)
struct MealPhotoTests {
    static let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0] + [UInt8](repeating: 3, count: 3000)
    static let webp: [UInt8] = Array("RIFF".utf8) + [0x10, 0, 0, 0] + Array("WEBPVP8 ".utf8) + [UInt8](repeating: 5, count: 500)

    /// `PUT /api/meals/:id/photo` with `image` as the body.
    static func put(_ image: [UInt8], on mealId: UUID, type: String = "image/png", query: String = "", token: String, stack: MealsStack)
        async throws -> TestResponse
    {
        try await stack.gateway.execute(
            uri: "/api/meals/\(mealId.uuidString.lowercased())/photo\(query)", method: .put,
            headers: [.authorization: "Bearer \(token)", .contentType: type], body: ByteBuffer(bytes: image))
    }

    /// `GET` of a photo URL without any token.
    static func fetch(_ url: String, stack: MealsStack) async throws -> TestResponse {
        try await stack.gateway.execute(uri: url, method: .get, headers: [:], body: nil)
    }

    @Test(
        "a photo attached to a written meal: a new version, a signed URL that works without a token until it expires, 403 when unsigned, tampered or expired"
    )
    func attachAndSignedURLs() async throws {
        try await MealsStack.run { stack in
            let email = "photos-\(UUID().uuidString.prefix(8))@example.com"
            let token = try await stack.gateway.register(email: email, name: "Photos").accessToken
            let meal = try await stack.analyze("2 eggs", token: token)
            #expect(meal.photoUrl == nil && meal.version == 1)

            let attached = try await Self.put(PhotoUpload.png, on: meal.id, token: token, stack: stack)
            #expect(attached.status == .ok, "\(String(buffer: attached.body))")
            let withPhoto = try attached.decoded(MealAnswer.self)
            let url = try #require(withPhoto.photoUrl)
            #expect(withPhoto.version == 2 && url.hasPrefix("/media/photos/") && url.contains("sig="))
            let expiresAt = try #require(withPhoto.photoUrlExpiresAt)
            let lifetime = expiresAt.timeIntervalSince(stack.clock.now())
            #expect(lifetime > 14 * 60 && lifetime <= 16 * 60, "URLs live 15 minutes by default (rounded up to the minute)")

            let loaded = try await Self.fetch(url, stack: stack)
            #expect(loaded.status == .ok && Array(buffer: loaded.body) == PhotoUpload.png)
            #expect(loaded.headers[.contentType] == "image/png" && loaded.headers[HTTPField.Name("X-Content-Type-Options")!] == "nosniff")
            let shown = try await stack.gateway.call(.get, "/api/meals/\(meal.id.uuidString.lowercased())", token: token)
            #expect(try shown.decoded(MealAnswer.self).photoUrl != nil)

            let path = String(url.prefix { $0 != "?" })
            let unsigned = try await Self.fetch(path, stack: stack)
            #expect(unsigned.status == .forbidden && unsigned.errorCode == "photo_url_unsigned")
            let tampered = try await Self.fetch(url.replacingOccurrences(of: "expires=", with: "expires=9"), stack: stack)
            #expect(tampered.status == .forbidden && tampered.errorCode == "photo_url_invalid")
            let otherPhoto = try await Self.fetch(
                url.replacingOccurrences(of: path, with: "/media/photos/\(UUID().uuidString.lowercased())"), stack: stack)
            #expect(otherPhoto.status == .forbidden && otherPhoto.errorCode == "photo_url_invalid", "the signature covers the path")
            let unknownKey = try await Self.fetch(url.replacingOccurrences(of: "kid=itest", with: "kid=old"), stack: stack)
            #expect(unknownKey.status == .forbidden && unknownKey.errorCode == "photo_url_invalid")

            stack.clock.advance(by: 16 * 60)
            let expired = try await Self.fetch(url, stack: stack)
            #expect(expired.status == .forbidden && expired.errorCode == "photo_url_expired")
            struct Session: Decodable { var accessToken: String }
            let later = try await stack.gateway.login(email: email).decoded(Session.self).accessToken
            let fresh = try await stack.gateway.call(.get, "/api/meals/\(meal.id.uuidString.lowercased())", token: later)
            let freshURL = try #require(try fresh.decoded(MealAnswer.self).photoUrl)
            let freshPhoto = try await Self.fetch(freshURL, stack: stack)
            #expect(freshURL != url && freshPhoto.status == .ok, "reading the meal again signs anew")
        }
    }

    @Test("a photo larger than a part is stored in parts and read back whole; replacing it removes its parts; an inline photo still reads")
    func photosInParts() async throws {
        try await MealsStack.run { stack in
            let (token, userId) = try await stack.signUp()
            let meal = try await stack.analyze("an apple", token: token)
            // Two whole parts and a short third, with bytes that differ by position, so an order mistake shows.
            let size = 2 * PhotoRepository.partBytes + 17
            let large: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0] + (4..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 11) }
            let stored = try await Self.put(large, on: meal.id, type: "image/jpeg", token: token, stack: stack)
            #expect(stored.status == .ok, "\(String(buffer: stored.body))")
            let url = try #require(try stored.decoded(MealAnswer.self).photoUrl)
            let read = try await Self.fetch(url, stack: stack)
            #expect(read.status == .ok && Array(buffer: read.body) == large, "the parts come back whole and in order")
            let sealed = SealingCipher.overhead
            #expect(
                try await Self.partSizes(of: meal.id, stack: stack)
                    == [PhotoRepository.partBytes + sealed, PhotoRepository.partBytes + sealed, 17 + sealed], "each part is sealed on its own")

            let replaced = try await Self.put(Self.jpeg, on: meal.id, type: "image/jpeg", token: token, stack: stack)
            #expect(replaced.status == .ok)
            #expect(
                try await Self.partSizes(of: meal.id, stack: stack) == [Self.jpeg.count + SealingCipher.overhead],
                "the old photo's parts went with it")
            let total = try await stack.mealsDatabase.query("SELECT count(*) FROM meal_photo_parts", logger: TestEnvironment.logger)
                .collect().first?.decode(Int.self)
            #expect(total == 1, "no part of the replaced photo is left behind")

            // A photo stored before parts existed (and before sealing) keeps its plain bytes in meal_photos.bytes.
            try await stack.mealsDatabase.query(
                """
                WITH inline AS (
                    UPDATE meal_photos SET bytes = \(ByteBuffer(bytes: Self.webp)), key_id = NULL WHERE meal_id = \(meal.id) AND user_id = \(userId)
                    RETURNING photo_id)
                DELETE FROM meal_photo_parts WHERE photo_id IN (SELECT photo_id FROM inline)
                """, logger: TestEnvironment.logger)
            let owner = try await stack.gateway.call(.get, "/api/meals/\(meal.id.uuidString.lowercased())/photo", token: token)
            #expect(owner.status == .ok && Array(buffer: owner.body) == Self.webp)
        }
    }

    /// The sizes of the parts of the meal's photo, in order.
    static func partSizes(of mealId: UUID, stack: MealsStack) async throws -> [Int] {
        let rows = try await stack.mealsDatabase.query(
            """
            SELECT length(parts.bytes) FROM meal_photo_parts parts JOIN meal_photos USING (photo_id)
            WHERE meal_photos.meal_id = \(mealId) ORDER BY parts.part
            """, logger: TestEnvironment.logger)
        var sizes: [Int] = []
        for try await size in rows.decode(Int.self) { sizes.append(size) }
        return sizes
    }

    @Test("replacing gives the photo a new URL (the old one is 404), deleting keeps the meal; formats by bytes, limits as analysis, strangers 404")
    func replaceDeleteAndRefusals() async throws {
        try await MealsStack.run { stack in
            let (token, userId) = try await stack.signUp()
            let meal = try await stack.analyze("an apple", token: token)
            let first = try await Self.put(PhotoUpload.png, on: meal.id, type: "application/octet-stream", token: token, stack: stack)
            let firstURL = try #require(try first.decoded(MealAnswer.self).photoUrl)

            let multipart = try await stack.gateway.execute(
                uri: "/api/meals/\(meal.id.uuidString.lowercased())/photo", method: .put,
                headers: [.authorization: "Bearer \(token)", .contentType: "multipart/form-data; boundary=\(PhotoUpload.boundary)"],
                body: PhotoUpload.body(Self.jpeg))
            #expect(multipart.status == .ok, "\(String(buffer: multipart.body))")
            let replaced = try multipart.decoded(MealAnswer.self)
            let secondURL = try #require(replaced.photoUrl)
            #expect(replaced.version == 3 && secondURL != firstURL)
            let old = try await Self.fetch(firstURL, stack: stack)
            #expect(old.status == .notFound, "a replaced photo's URL no longer shows anything")
            let current = try await Self.fetch(secondURL, stack: stack)
            #expect(current.headers[.contentType] == "image/jpeg" && Array(buffer: current.body) == Self.jpeg, "the type comes from the bytes")
            let webp = try await Self.put(Self.webp, on: meal.id, type: "image/jpeg", token: token, stack: stack)
            let webpURL = try #require(try webp.decoded(MealAnswer.self).photoUrl)
            let webpPhoto = try await Self.fetch(webpURL, stack: stack)
            #expect(webp.status == .ok && webpPhoto.headers[.contentType] == "image/webp")

            let gif = try await Self.put(
                Array("GIF89a".utf8) + [UInt8](repeating: 0, count: 100), on: meal.id, type: "image/gif", token: token, stack: stack)
            #expect(gif.status == .unsupportedMediaType && gif.errorCode == "unsupported_image_type")
            let huge = try await Self.put(
                [0xFF, 0xD8, 0xFF] + [UInt8](repeating: 1, count: 10 * 1024 * 1024), on: meal.id, token: token, stack: stack)
            #expect(huge.status == .contentTooLarge && huge.errorCode == "payload_too_large")
            let empty = try await Self.put([], on: meal.id, token: token, stack: stack)
            #expect(empty.status == .unprocessableContent && empty.errorCode == "validation_failed")
            let stale = try await stack.gateway.execute(
                uri: "/api/meals/\(meal.id.uuidString.lowercased())/photo", method: .put,
                headers: [.authorization: "Bearer \(token)", .contentType: "image/png", .ifMatch: "\"1\""], body: ByteBuffer(bytes: PhotoUpload.png))
            #expect(stale.status == .conflict && stale.errorCode == "version_conflict")
            let (stranger, _) = try await stack.signUp("stranger")
            #expect(try await Self.put(PhotoUpload.png, on: meal.id, token: stranger, stack: stack).status == .notFound)
            #expect(try await Self.put(PhotoUpload.png, on: UUID(), token: token, stack: stack).status == .notFound)

            let deleted = try await stack.gateway.call(.delete, "/api/meals/\(meal.id.uuidString.lowercased())/photo", token: token)
            let withoutPhoto = try deleted.decoded(MealAnswer.self)
            #expect(deleted.status == .ok && withoutPhoto.photoUrl == nil && withoutPhoto.version == 5 && withoutPhoto.items.count == 1)
            let again = try await stack.gateway.call(.delete, "/api/meals/\(meal.id.uuidString.lowercased())/photo", token: token)
            let againVersion = try again.decoded(MealAnswer.self).version
            #expect(again.status == .ok && againVersion == 5, "deleting no photo changes nothing")
            let ownerRead = try await stack.gateway.call(.get, "/api/meals/\(meal.id.uuidString.lowercased())/photo", token: token)
            #expect(ownerRead.status == .notFound)
            #expect(try await userRows(in: "meal_photos", of: userId, client: stack.mealsDatabase) == 0)
            let lastEvent = try await stack.mealsDatabase.query(
                """
                SELECT (convert_from(payload, 'UTF8')::jsonb -> 'data' -> 'meal' ->> 'hasPhoto')::boolean FROM outbox
                WHERE (convert_from(payload, 'UTF8')::jsonb -> 'data' -> 'meal' ->> 'mealId')::uuid = \(meal.id)
                ORDER BY id DESC LIMIT 1
                """, logger: TestEnvironment.logger
            ).collect().first?.decode(Bool.self)
            #expect(lastEvent == false, "the meal's last event says the photo is gone")
        }
    }

    @Test("deletePhotosAfterDays removes photos stored longer ago than the setting; the meals stay; a second run removes nothing")
    func photoRetention() async throws {
        try await MealsStack.run { stack in
            let (token, userId) = try await stack.signUp()
            let old = try await stack.analyze("2 eggs", token: token)
            #expect(try await Self.put(PhotoUpload.png, on: old.id, token: token, stack: stack).status == .ok)
            try await stack.mealsDatabase.query(
                "UPDATE meal_photos SET stored_at = stored_at - interval '20 days' WHERE meal_id = \(old.id)", logger: TestEnvironment.logger)
            let recent = try await stack.analyze("an apple", token: token)
            #expect(try await Self.put(PhotoUpload.png, on: recent.id, token: token, stack: stack).status == .ok)

            let profile = try await stack.gateway.call(.put, "/api/users/profile", json: #"{"deletePhotosAfterDays":10}"#, token: token)
            #expect(profile.status == .ok && String(buffer: profile.body).contains(#""deletePhotosAfterDays":10"#))
            let retention = MealPhotoRetention(
                client: stack.mealsDatabase, meals: MealRepository(), profiles: ProfileRepository(),
                store: PostgresMealStore(
                    client: stack.mealsDatabase, meals: MealRepository(), photos: TestServices.photoVault(keys: try TestServices.photoKeys()),
                    now: { stack.clock.now() }))
            var removed = 0
            let learned = try await TestEnvironment.eventually(timeout: .seconds(30)) {
                removed += try await retention.purge(now: stack.clock.now(), logger: TestEnvironment.logger)
                return removed > 0
            }
            #expect(learned && removed == 1, "the meals service learns the setting from user.profile_updated")
            let oldAfter = try await stack.gateway.call(.get, "/api/meals/\(old.id.uuidString.lowercased())", token: token)
            let recentAfter = try await stack.gateway.call(.get, "/api/meals/\(recent.id.uuidString.lowercased())", token: token)
            let oldPhoto = try oldAfter.decoded(MealAnswer.self).photoUrl
            #expect(oldAfter.status == .ok && oldPhoto == nil)
            #expect((try recentAfter.decoded(MealAnswer.self)).photoUrl != nil)
            #expect(try await retention.purge(now: stack.clock.now(), logger: TestEnvironment.logger) == 0)
            #expect(try await stack.storedMeals(of: userId) == 2)
        }
    }
}

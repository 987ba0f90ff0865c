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

/// How meal photos are kept: sealed at rest (AES-256-GCM, the key's id beside each photo), with a thumbnail made at
/// upload by libvips, and brought up to date by the photo upkeep job (older plain photos sealed and given thumbnails,
/// photos under a previous key sealed again).
@Suite("Meal photo storage", .serialized)
struct MealPhotoStorageTests {
    /// Attaches `image` to a new meal of the token's user; answers the meal.
    static func mealWithPhoto(_ image: [UInt8], token: String, stack: MealsStack) async throws -> MealAnswer {
        let meal = try await stack.analyze("an apple", token: token)
        let attached = try await MealPhotoTests.put(image, on: meal.id, type: "image/jpeg", token: token, stack: stack)
        #expect(attached.status == .ok, "\(String(buffer: attached.body))")
        return try attached.decoded(MealAnswer.self)
    }

    /// The stored bytes of the meal's photo (its parts joined, as the database holds them), the id of the key that
    /// sealed them, and the stored thumbnail's bytes; read as the meals service's role.
    static func storedRow(of mealId: UUID, stack: MealsStack) async throws -> (bytes: [UInt8], keyId: String?, thumbnail: [UInt8]?) {
        let rows = try await stack.mealsDatabase.query(
            """
            SELECT (SELECT string_agg(parts.bytes, ''::bytea ORDER BY parts.part) FROM meal_photo_parts parts WHERE parts.photo_id = p.photo_id),
                   p.key_id, (SELECT t.bytes FROM meal_photo_thumbnails t WHERE t.photo_id = p.photo_id)
            FROM meal_photos p WHERE p.meal_id = \(mealId)
            """, logger: TestEnvironment.logger)
        var found: (bytes: [UInt8], keyId: String?, thumbnail: [UInt8]?)?
        for try await (bytes, keyId, thumbnail) in rows.decode((ByteBuffer, String?, ByteBuffer?).self) {
            found = (Array(buffer: bytes), keyId, thumbnail.map { Array(buffer: $0) })
        }
        return try #require(found, "no photo row for meal \(mealId)")
    }

    /// The body of a signed URL fetched without a token, which must answer 200.
    static func download(_ url: String?, stack: MealsStack) async throws -> (bytes: [UInt8], type: String?) {
        let response = try await MealPhotoTests.fetch(try #require(url), stack: stack)
        #expect(response.status == .ok, "\(String(buffer: response.body))")
        return (Array(buffer: response.body), response.headers[.contentType])
    }

    @Test("a photo is sealed in the database (never its plain bytes) and served as uploaded; its thumbnail too, ≤ 320 px, in lists and the feed")
    func sealedAtRestWithThumbnail() async throws {
        try await MealsStack.run { stack in
            let (token, _) = try await stack.signUp()
            let photo = try TestImages.jpeg(width: 1200, height: 800)
            let meal = try await Self.mealWithPhoto(photo, token: token, stack: stack)
            #expect(meal.thumbnail == "ready")

            let stored = try await Self.storedRow(of: meal.id, stack: stack)
            #expect(stored.keyId == "itest", "the row names the key that sealed it")
            #expect(stored.bytes != photo && stored.bytes.count == photo.count + SealingCipher.overhead)
            #expect(!Self.contains(stored.bytes, Array(photo[100..<164])), "no run of the plain bytes is in the row")
            let storedThumbnail = try #require(stored.thumbnail)
            #expect(JPEGSize(of: storedThumbnail) == nil, "the stored thumbnail is sealed too")

            #expect(try await Self.download(meal.photoUrl, stack: stack).bytes == photo, "the API serves the photo as uploaded")
            let owner = try await stack.gateway.call(.get, "/api/meals/\(meal.id.uuidString.lowercased())/photo", token: token)
            #expect(Array(buffer: owner.body) == photo)
            let thumbnail = try await Self.download(meal.thumbnailUrl, stack: stack)
            let size = try #require(JPEGSize(of: thumbnail.bytes))
            #expect(thumbnail.type == "image/jpeg" && size == JPEGSize(width: 320, height: 213), "320 px on the long side, got \(size)")

            struct Page: Decodable { var meals: [MealAnswer] }
            let list = try await stack.gateway.call(.get, "/api/meals", token: token).decoded(Page.self)
            #expect(list.meals.first?.thumbnailUrl?.hasPrefix("/media/photos/") == true, "the meal list carries the thumbnail URL")
            let feed = try await stack.gateway.call(.get, "/api/sync/meals/changes", token: token)
            #expect(String(buffer: feed.body).contains(#""thumbnailUrl":"\/media\/photos\/"#), "the changes feed carries it too")

            let path = try #require(meal.thumbnailUrl).prefix { $0 != "?" }
            let unsigned = try await MealPhotoTests.fetch(String(path), stack: stack)
            #expect(unsigned.status == .forbidden && unsigned.errorCode == "photo_url_unsigned")
            let photoSignature = try #require(meal.photoUrl).split(separator: "?").last.map(String.init) ?? ""
            let borrowed = try await MealPhotoTests.fetch("\(path)?\(photoSignature)", stack: stack)
            #expect(borrowed.status == .forbidden, "the photo's signature does not open its thumbnail")
        }
    }

    @Test("a photo with an EXIF orientation gets an upright thumbnail without EXIF")
    func uprightThumbnail() async throws {
        try await MealsStack.run { stack in
            let (token, _) = try await stack.signUp()
            // Stored 640x320 on its side; EXIF orientation 6 says to turn it a quarter clockwise: it stands 320x640.
            let meal = try await Self.mealWithPhoto(try TestImages.jpeg(width: 640, height: 320, orientation: 6), token: token, stack: stack)
            let thumbnail = try await Self.download(meal.thumbnailUrl, stack: stack).bytes
            #expect(JPEGSize(of: thumbnail) == JPEGSize(width: 160, height: 320), "upright: taller than wide")
            #expect(!Self.contains(thumbnail, Array("Exif".utf8)), "EXIF is stripped")
        }
    }

    @Test("a photo the image library cannot read is stored all the same; the answer says it has no thumbnail")
    func unreadablePhotoWithoutThumbnail() async throws {
        try await MealsStack.run { stack in
            let (token, _) = try await stack.signUp()
            let meal = try await Self.mealWithPhoto(TestImages.brokenJPEG, token: token, stack: stack)
            #expect(meal.thumbnail == "unavailable" && meal.thumbnailUrl == nil && meal.photoUrl != nil)
            #expect(try await Self.download(meal.photoUrl, stack: stack).bytes == TestImages.brokenJPEG)
            let shown = try await stack.gateway.call(.get, "/api/meals/\(meal.id.uuidString.lowercased())", token: token)
            #expect(try shown.decoded(MealAnswer.self).thumbnail == "unavailable")
        }
    }

    @Test("the upkeep job seals plain photos and gives them thumbnails, and seals again what a previous key sealed; both still serve the same bytes")
    func upkeepSealsAndReseals() async throws {
        try await MealsStack.run { stack in
            let (token, _) = try await stack.signUp()
            let plainPhoto = try TestImages.jpeg(width: 800, height: 600)
            let oldPhoto = try TestImages.jpeg(width: 500, height: 500)
            let plain = try await Self.mealWithPhoto(plainPhoto, token: token, stack: stack)
            let old = try await Self.mealWithPhoto(oldPhoto, token: token, stack: stack)
            let previous = TestServices.photoVault(keys: try TestServices.photoKeys(sealingUnderPrevious: true))
            try await stack.mealsDatabase.withConnection { connection in
                // As stored before sealing and thumbnails: plain parts, no key, no thumbnail tried.
                try await connection.query(
                    """
                    WITH photo AS (UPDATE meal_photos SET key_id = NULL, thumbnail = NULL WHERE meal_id = \(plain.id) RETURNING photo_id),
                         gone AS (DELETE FROM meal_photo_thumbnails WHERE photo_id IN (SELECT photo_id FROM photo))
                    UPDATE meal_photo_parts SET bytes = \(ByteBuffer(bytes: plainPhoto)) WHERE photo_id IN (SELECT photo_id FROM photo)
                    """, logger: TestEnvironment.logger)
                // Sealed under the previous key, as before a rotation.
                let photoId = try await connection.query("SELECT photo_id FROM meal_photos WHERE meal_id = \(old.id)", logger: TestEnvironment.logger)
                    .collect().first!.decode(UUID.self)
                try await PhotoRepository().replaceParts(
                    try previous.sealParts(oldPhoto, photoId: photoId), photoId: photoId, on: connection, logger: TestEnvironment.logger)
            }
            let pending = try await stack.gateway.call(.get, "/api/meals/\(plain.id.uuidString.lowercased())", token: token)
            let pendingAnswer = try pending.decoded(MealAnswer.self)
            #expect(pendingAnswer.thumbnail == "pending" && pendingAnswer.thumbnailUrl == nil)
            #expect(try await Self.download(pendingAnswer.photoUrl, stack: stack).bytes == plainPhoto, "a plain photo still serves")
            #expect(try await Self.storedRow(of: old.id, stack: stack).keyId == "itest-old")
            #expect(try await Self.download(old.photoUrl, stack: stack).bytes == oldPhoto, "a previous key still opens")

            let upkeep = MealPhotoUpkeep(client: stack.mealsDatabase, vault: TestServices.photoVault(keys: try TestServices.photoKeys()))
            let outcome = try await upkeep.run(logger: TestEnvironment.logger)
            #expect(outcome == MealPhotoUpkeep.Outcome(sealed: 2, thumbnailsMade: 1, thumbnailsUnavailable: 0, unreadable: 0))
            for (meal, photo) in [(plain, plainPhoto), (old, oldPhoto)] {
                let row = try await Self.storedRow(of: meal.id, stack: stack)
                #expect(row.keyId == "itest" && row.bytes != photo, "sealed under the current key")
                let answer = try await stack.gateway.call(.get, "/api/meals/\(meal.id.uuidString.lowercased())", token: token)
                    .decoded(MealAnswer.self)
                #expect(try await Self.download(answer.photoUrl, stack: stack).bytes == photo)
                #expect(answer.thumbnail == "ready" && answer.thumbnailUrl != nil)
            }
            #expect(try await upkeep.run(logger: TestEnvironment.logger) == MealPhotoUpkeep.Outcome(), "a second run finds nothing to do")
        }
    }

    private static func contains(_ bytes: [UInt8], _ run: [UInt8]) -> Bool {
        guard !run.isEmpty, bytes.count >= run.count else { return false }
        return (0...(bytes.count - run.count)).contains { bytes[$0..<$0 + run.count].elementsEqual(run) }
    }
}

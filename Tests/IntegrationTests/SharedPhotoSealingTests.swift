import BackendKit
import Foundation
import NIOCore
import PostgresNIO
import PostgresSupport
import TestSupport
import Testing

@testable import SharingService

/// Sharing's photo copies at rest: sealed under the sharing service's photo key, opened for the public photo route,
/// and sealed again under the current key (or sealed at all, for a copy made before sealing) by its upkeep job.
@Suite("Shared photo copies sealed at rest", .serialized)
struct SharedPhotoSealingTests {
    /// The stored bytes of the meal's photo copy and the id of the key that sealed them, read as sharing's role.
    static func storedCopy(of mealId: UUID, stack: SharingStack) async throws -> (bytes: [UInt8], keyId: String?) {
        let rows = try await stack.sharingDatabase.query(
            "SELECT bytes, key_id FROM meal_photos WHERE meal_id = \(mealId)", logger: TestEnvironment.logger)
        var found: (bytes: [UInt8], keyId: String?)?
        for try await (bytes, keyId) in rows.decode((ByteBuffer, String?).self) { found = (Array(buffer: bytes), keyId) }
        return try #require(found, "no photo copy of meal \(mealId)")
    }

    @Test(
        "a shared photo is stored sealed and served as uploaded; a copy under a previous key, or plain, opens and the job seals it under the current key"
    )
    func sealedCopies() async throws {
        try await SharingStack.run { stack in
            let (token, _) = try await stack.signUp()
            stack.vision.script(
                #"{"items":[{"name":"white rice","amount":1,"unit":"cup","grams":158,"confidence":0.9,"calories_kcal":205,"protein_g":4.3,"#
                    + #""carbs_g":44.5,"fat_g":0.4,"fiber_g":0.6,"sugars_g":0.1,"saturated_fat_g":0.1,"sodium_mg":2,"alcohol_g":0}]}"#
            )
            let photo: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + (0..<3000).map { UInt8($0 % 251) }
            let analyzed = try await stack.gateway.call(
                .post, "/api/analyze", json: #"{"image":"\#(Data(photo).base64EncodedString())"}"#, token: token)
            #expect(analyzed.status == .created, "\(String(buffer: analyzed.body))")
            let mealId = try analyzed.decoded(MealAnswer.self).id
            let link = try await stack.shareLink(mealId, json: #"{"includePhoto":true}"#, token: token)
            func served() async throws -> [UInt8] {
                let response = try await stack.open("/shared/\(link.token)/photo")
                #expect(response.status == .ok, "\(String(buffer: response.body))")
                return Array(buffer: response.body)
            }

            let sealed = try await Self.storedCopy(of: mealId, stack: stack)
            #expect(sealed.keyId == "itest" && sealed.bytes != photo && sealed.bytes.count == photo.count + SealingCipher.overhead)
            #expect(try await served() == photo)

            let repository = MealPhotoRepository(client: stack.sharingDatabase, cipher: SealingCipher(keys: try TestServices.photoKeys()))
            let underPrevious = try SealingCipher(keys: try TestServices.photoKeys(sealingUnderPrevious: true))
                .seal(photo, context: "nutritionai.shared-photo.\(mealId.uuidString.lowercased())")
            try await stack.sharingDatabase.query(
                "UPDATE meal_photos SET bytes = \(ByteBuffer(bytes: underPrevious.sealed)), key_id = \(underPrevious.keyId) WHERE meal_id = \(mealId)",
                logger: TestEnvironment.logger)
            #expect(try await served() == photo, "a previous key still opens the copy")
            #expect(try await repository.sealDue(logger: TestEnvironment.logger) == 1)
            let resealed = try await Self.storedCopy(of: mealId, stack: stack)
            #expect(resealed.keyId == "itest" && resealed.bytes != underPrevious.sealed && resealed.bytes != photo)
            #expect(try await served() == photo)

            try await stack.sharingDatabase.query(
                "UPDATE meal_photos SET bytes = \(ByteBuffer(bytes: photo)), key_id = NULL WHERE meal_id = \(mealId)", logger: TestEnvironment.logger)
            #expect(try await served() == photo, "a copy made before sealing is served as it is")
            #expect(try await repository.sealDue(logger: TestEnvironment.logger) == 1)
            let nowSealed = try await Self.storedCopy(of: mealId, stack: stack)
            #expect(nowSealed.keyId == "itest" && nowSealed.bytes != photo)
            #expect(try await served() == photo)
            #expect(try await repository.sealDue(logger: TestEnvironment.logger) == 0, "nothing is left to seal")
        }
    }
}

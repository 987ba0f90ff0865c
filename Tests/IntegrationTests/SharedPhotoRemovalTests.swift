import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import TestSupport
import Testing

/// A photo attached to a written meal can be shared, and a photo the owner deletes stops being shown by their links.
@Suite("Shared photos follow the owner's photo", .serialized)
struct SharedPhotoRemovalTests {
    @Test("a photo attached to a hand-entered meal is shared with it; deleting the photo takes it off the link, which stays open")
    func deletedPhotoLeavesLinks() async throws {
        try await SharingStack.run { stack in
            let (token, userId) = try await stack.signUp()
            let mealId = try await stack.logMeal(token: token)
            let photo: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + (0..<1500).map { UInt8($0 % 251) }
            let attached = try await stack.gateway.execute(
                uri: "/api/meals/\(mealId.uuidString.lowercased())/photo", method: .put,
                headers: [.authorization: "Bearer \(token)", .contentType: "image/png"], body: ByteBuffer(bytes: photo))
            #expect(attached.status == .ok, "\(String(buffer: attached.body))")

            // The sharing service learns of the photo from the meal's event; until then a link is made without it.
            var link = try await stack.shareLink(mealId, json: #"{"includePhoto":true}"#, token: token)
            let deadline = ContinuousClock.now + .seconds(30)
            while !link.includesPhoto && ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(200))
                link = try await stack.shareLink(mealId, json: #"{"includePhoto":true}"#, token: token)
            }
            #expect(link.includesPhoto)
            let served = try await stack.open("/shared/\(link.token)/photo")
            #expect(served.status == .ok && Array(buffer: served.body) == photo)
            #expect(try await userRows(in: "meal_photos", of: userId, client: stack.sharingDatabase) == 1, "sharing holds a copy before")

            let deleted = try await stack.gateway.call(.delete, "/api/meals/\(mealId.uuidString.lowercased())/photo", token: token)
            #expect(deleted.status == .ok)
            let gone = try await TestEnvironment.eventually(timeout: .seconds(30)) {
                try await stack.open("/shared/\(link.token)/photo").status == .notFound
            }
            #expect(gone, "the link stops showing a deleted photo")
            #expect(try await userRows(in: "meal_photos", of: userId, client: stack.sharingDatabase) == 0, "the copy is gone too")
            #expect(try await stack.open("/api/share/\(link.token)").status == .ok, "the link itself stays open")
        }
    }
}

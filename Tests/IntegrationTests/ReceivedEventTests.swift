import EventContracts
import Foundation
import Messaging
import PostgresSupport
import Testing

@Suite("Which payloads a consumer reads and which it parks")
struct ReceivedEventTests {
    let userId = UUID()

    func received(version: Int, data: String? = nil) throws -> ReceivedEvent {
        let text = """
            {"specversion":"1.0","id":"\(UUID().uuidString)","source":"auth","type":"user.deleted","time":"2026-11-21T10:00:00Z",
            "subject":"\(userId.uuidString.lowercased())","datacontenttype":"application/json","dataschemaversion":\(version),
            "data":\(data ?? #"{"userId":"\#(userId.uuidString)","deletedAt":"2026-11-21T10:00:00Z","requestedBy":"user"}"#)}
            """
        let bytes = Array(text.utf8)
        return ReceivedEvent(header: try EventCoding.header(of: bytes), bytes: bytes, traceparent: nil)
    }

    @Test("a version the payload type reads decodes, ignoring fields it does not know")
    func knownVersion() throws {
        #expect(try received(version: 1).payload(UserDeleted.self).userId == userId)
    }

    @Test("a newer dataschemaversion is rejected (to be parked) even when its data would decode as the older type")
    func newerVersionIsRejected() throws {
        let event = try received(version: 2)
        let rejection = try #require(throws: EventRejected.self) { try event.payload(UserDeleted.self) }
        #expect(rejection.reason.contains("dataschemaversion 2"), "\(rejection.reason)")
    }

    @Test("a payload that does not decode is rejected with its type and version named")
    func unreadablePayloadIsRejected() throws {
        let event = try received(version: 1, data: #"{"userId":"not a uuid"}"#)
        let rejection = try #require(throws: EventRejected.self) { try event.payload(UserDeleted.self) }
        #expect(rejection.reason == "unreadable user.deleted payload (dataschemaversion 1)")
    }
}

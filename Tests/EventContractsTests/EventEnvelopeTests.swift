import EventContracts
import Foundation
import Testing
import WireJSON

@Suite("CloudEvents envelope")
struct EventEnvelopeTests {
    let userId = UUID()

    @Test("an envelope carries the CloudEvents 1.0 attributes and round-trips its payload")
    func roundTrip() throws {
        let payload = WeightLogged(
            userId: userId, date: "2026-11-21", weightKg: 81.4, ketonesMmolPerLiter: 1.2,
            loggedAt: Date(timeIntervalSince1970: 1_790_000_000.125), version: 3)
        // Millisecond time: the wire format keeps milliseconds, which is what the round trip can promise.
        let envelope = EventEnvelope(
            source: "metrics", subject: userId.lowercasedString, data: payload, time: Date(timeIntervalSince1970: 1_790_000_001.5))
        let bytes = try EventCoding.encode(envelope)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])

        #expect(json["specversion"] as? String == "1.0")
        #expect(json["type"] as? String == "weight.logged")
        #expect(json["source"] as? String == "metrics")
        #expect(json["subject"] as? String == userId.lowercasedString)
        #expect(json["dataschemaversion"] as? Int == 1)
        #expect((json["time"] as? String)?.hasSuffix("Z") == true)
        #expect(try EventCoding.decode(WeightLogged.self, from: bytes) == envelope)
    }

    @Test("the header of any event is readable without knowing its payload")
    func headerFirst() throws {
        let envelope = EventEnvelope(
            source: "auth", subject: userId.lowercasedString, data: UserDeleted(userId: userId, deletedAt: Date()))
        let header = try EventCoding.header(of: try EventCoding.encode(envelope))
        #expect(header.id == envelope.id)
        #expect(header.type == Topic.userDeleted.rawValue)
    }

    @Test("the traceparent attribute is written only when set, and events without it still decode")
    func traceparentIsOptional() throws {
        var envelope = EventEnvelope(source: "auth", subject: userId.lowercasedString, data: UserDeleted(userId: userId, deletedAt: Date()))
        let untraced = try EventCoding.encode(envelope)
        #expect(!String(decoding: untraced, as: UTF8.self).contains("traceparent"))
        #expect(try EventCoding.header(of: untraced).traceparent == nil)

        envelope.traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
        let traced = try EventCoding.encode(envelope)
        #expect(try EventCoding.header(of: traced).traceparent == envelope.traceparent)
        #expect(try EventCoding.decode(UserDeleted.self, from: traced).traceparent == envelope.traceparent)
    }

    @Test("timestamps from other producers without fractional seconds still decode")
    func plainTimestamps() throws {
        let text = """
            {"specversion":"1.0","id":"\(UUID().uuidString)","source":"x","type":"user.deleted","time":"2026-11-21T10:00:00Z",
            "subject":"\(userId.uuidString)","datacontenttype":"application/json","dataschemaversion":1,
            "data":{"userId":"\(userId.uuidString)","deletedAt":"2026-11-21T10:00:00Z"}}
            """
        let envelope = try EventCoding.decode(UserDeleted.self, from: Array(text.utf8))
        #expect(envelope.data.deletedAt == Date(timeIntervalSince1970: 1_795_255_200))
    }

    @Test("fields a consumer does not know, in the envelope and in data, are ignored (a producer may add optional ones)")
    func unknownFieldsAreIgnored() throws {
        let payload = WeightLogged(
            userId: userId, date: "2026-11-21", weightKg: 81.4, ketonesMmolPerLiter: nil, loggedAt: Date(timeIntervalSince1970: 1_790_000_000),
            version: 2)
        let envelope = EventEnvelope(
            source: "metrics", subject: userId.lowercasedString, data: payload, time: Date(timeIntervalSince1970: 1_790_000_001))
        var json = try #require(try JSONSerialization.jsonObject(with: Data(try EventCoding.encode(envelope))) as? [String: Any])
        var data = try #require(json["data"] as? [String: Any])
        data["bodyFatPercent"] = 18.5
        data["device"] = ["kind": "scale", "model": "X1"]
        json["data"] = data
        json["partitionkey"] = "a later CloudEvents extension"
        let bytes = Array(try JSONSerialization.data(withJSONObject: json))

        #expect(try EventCoding.decode(WeightLogged.self, from: bytes) == envelope)
        #expect(try EventCoding.header(of: bytes).id == envelope.id)
    }

    @Test("a payload type reads only its own dataschemaversion unless it says it reads older ones")
    func readableVersions() {
        #expect(UserDeleted.readableVersions == 1...1)
        #expect(!UserDeleted.readableVersions.contains(2), "a newer version is a new schema: never decoded as the older type")
        #expect(MealConsumed.readableVersions.contains(MealConsumed.schemaVersion))
    }

    @Test("every topic of the contract has a payload type bound to it")
    func everyTopicHasAPayload() {
        let payloads: [any EventPayload.Type] = [
            MealAnalyzed.self, MealConsumed.self, MealDeleted.self, WeightLogged.self, WaterLogged.self, UserProfileUpdated.self,
            UserDeleted.self, FoodProductChanged.self,
        ]
        #expect(Set(payloads.map { $0.topic }) == Set(Topic.allCases))
    }
}

import EventContracts
import Foundation
import Testing
import WireJSON

@Suite("Lower-case ids in every JSON the system writes")
struct WireJSONEncoderTests {
    struct Item: Codable, Equatable {
        var id: UUID
        var related: [UUID]
        var byOwner: [UUID: Int]
        var parent: UUID?
        var at: Date
        var note: String
    }

    struct Page: Codable, Equatable {
        var items: [Item]
        var owner: UUID
    }

    /// An upper-case UUID anywhere in `text`.
    static func upperCaseUUID(in text: String) -> Bool {
        text.range(of: "[0-9A-F]{8}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{12}", options: .regularExpression) != nil
            && text.range(of: "[A-F]", options: .regularExpression) != nil
    }

    @Test("ids at every depth (fields, arrays, dictionary keys, optionals) are written in lower case and read back")
    func nestedIds() throws {
        let id = UUID()
        let item = Item(id: id, related: [UUID(), UUID()], byOwner: [UUID(): 2], parent: UUID(), at: Date(timeIntervalSince1970: 0), note: "x")
        let page = Page(items: [item, item], owner: UUID())
        let encoder = WireJSONEncoder.iso8601()
        encoder.outputFormatting = .sortedKeys
        let text = String(decoding: try encoder.encode(page), as: UTF8.self)

        #expect(!Self.upperCaseUUID(in: text), "upper case in \(text)")
        #expect(text.contains("\"\(id.uuidString.lowercased())\""))
        // The base encoder's strategies still apply: the date is ISO-8601, not seconds.
        #expect(text.contains("\"at\":\"1970-01-01T00:00:00Z\""))
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        #expect(try decoder.decode(Page.self, from: Data(text.utf8)) == page)
    }

    @Test("a UUID, a list of UUIDs and a date at the top level")
    func topLevel() throws {
        let id = UUID()
        let encoder = WireJSONEncoder.iso8601()
        #expect(String(decoding: try encoder.encode(id), as: UTF8.self) == "\"\(id.uuidString.lowercased())\"")
        #expect(String(decoding: try encoder.encode([id]), as: UTF8.self) == "[\"\(id.uuidString.lowercased())\"]")
        #expect(String(decoding: try encoder.encode(Date(timeIntervalSince1970: 0)), as: UTF8.self) == "\"1970-01-01T00:00:00Z\"")
    }

    @Test("an event's envelope and payload carry lower-case ids")
    func events() throws {
        let userId = UUID()
        let envelope = EventEnvelope(
            source: "auth", subject: userId.lowercasedString, data: UserDeleted(userId: userId, deletedAt: Date(timeIntervalSince1970: 0)))
        let text = String(decoding: try EventCoding.encode(envelope), as: UTF8.self)
        #expect(!Self.upperCaseUUID(in: text), "upper case in \(text)")
        #expect(text.contains(envelope.id.uuidString.lowercased()) && text.contains(userId.uuidString.lowercased()))
        // Any case is accepted on input: an event written by an older producer in upper case still reads.
        let older = text.replacingOccurrences(of: userId.uuidString.lowercased(), with: userId.uuidString)
        #expect(try EventCoding.decode(UserDeleted.self, from: Array(older.utf8)).data.userId == userId)
    }
}

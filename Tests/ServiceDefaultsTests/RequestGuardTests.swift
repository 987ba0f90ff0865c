import Foundation
import Hummingbird
import Testing

@testable import ServiceDefaults

/// Input PostgreSQL would refuse with an error (a 500) is refused at the edge with a 4xx instead.
@Suite("Guards against input the database cannot hold")
struct RequestGuardTests {
    @Test(
        "the escape \\u0000 is found in JSON text unless its backslash is itself escaped",
        arguments: [
            (#"{"notes":"a\u0000b"}"#, true),
            (#"{"notes":"\\\u0000"}"#, true),
            (#"{"notes":"\\u0000"}"#, false),
            (#"{"notes":"\u00001"}"#, true),
            (#"{"notes":"\u0001"}"#, false),
            (#"{"notes":"u0000"}"#, false),
            (#"{"notes":"\u000"}"#, false),
        ])
    func escapedNUL(json: String, found: Bool) {
        #expect(Request.containsEscapedNUL(Array(json.utf8)) == found)
    }

    @Test("time cursors outside years 1 to 9999, and keys holding NUL, are not ones this API made")
    func cursorBounds() throws {
        let id = UUID()
        let now = Date(timeIntervalSince1970: 1_773_144_000.123456)
        let made = try ListCursor.decodeTime(ListCursor.encode(time: now, id: id))
        #expect(made.micros == 1_773_144_000_123_456 && made.id == id)
        for micros in ["-1000000000000000000", "9223372036854775807", "253402300800000000"] {
            let forged = ListCursor.encode(key: micros, id: id)
            #expect(throws: APIError.self) { try ListCursor.decodeTime(forged) }
        }
        #expect(throws: APIError.self) { try ListCursor.decode(ListCursor.encode(key: "soup\u{0}", id: id)) }
        #expect(try ListCursor.decode(ListCursor.encode(key: "soup", id: id)).key == "soup")
    }
}

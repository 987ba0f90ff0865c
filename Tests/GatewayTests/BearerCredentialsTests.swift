import Testing

@testable import Gateway

/// The bearer token of an `Authorization` header, read as RFC 9110 section 11.1 has it.
@Suite("Bearer credentials")
struct BearerCredentialsTests {
    @Test("the scheme is case-insensitive and spaces around the token are dropped")
    func tokens() {
        #expect(BearerCredentials.bearerToken("Bearer abc.def.ghi") == "abc.def.ghi")
        #expect(BearerCredentials.bearerToken("bearer abc") == "abc")
        #expect(BearerCredentials.bearerToken("BEARER abc") == "abc")
        #expect(BearerCredentials.bearerToken("  Bearer \t abc \t ") == "abc")
    }

    @Test("another scheme, no token, or a scheme alone is no bearer token")
    func refusals() {
        for value in [
            "Basic abc", "Bearer", "Bearer ", "Bearer  \t ", "Bearerx abc", "Bearxr abc", "", "abc", "Bear\u{0}r abc", "Bëarer abc", "Bearer\tabc",
        ] {
            #expect(BearerCredentials.bearerToken(value) == nil, "\(value.debugDescription)")
        }
    }
}

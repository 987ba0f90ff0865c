import HTTPTypes
import Testing

@testable import Gateway

@Suite("Header look-ups of the admission")
struct HTTPFieldsLookupTests {
    @Test("value(of:) answers what the subscript answers: one value as it is, several joined, none as nil")
    func sameAsSubscript() {
        let cases: [HTTPFields] = [
            [:],
            [.authorization: "Bearer abc"],
            [.accept: "a", .authorization: "Bearer abc"],
            [.authorization: "Bearer abc", .accept: "b", .authorization: "Bearer def"],
            [.cookie: "a=1", .cookie: "b=2"],
        ]
        for fields in cases {
            for name in [HTTPField.Name.authorization, .cookie, .accept, .origin] {
                #expect(fields.value(of: name) == fields[name], "\(name) in \(fields)")
                #expect(fields.has(name) == (fields[name] != nil))
            }
        }
        #expect(HTTPFields([HTTPField(name: .cookie, value: "a=1"), HTTPField(name: .cookie, value: "b=2")]).value(of: .cookie) == "a=1; b=2")
        #expect(
            HTTPFields([HTTPField(name: .authorization, value: "x"), HTTPField(name: .authorization, value: "y")]).value(of: .authorization) == "x, y"
        )
    }
}

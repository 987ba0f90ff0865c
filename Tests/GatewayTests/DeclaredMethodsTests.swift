import Foundation
import HTTPTypes
import Testing

@testable import Gateway

/// `DeclaredMethods`: the methods of each path of the API document, literal segments before parameters.
@Suite("Declared methods from the API document")
struct DeclaredMethodsTests {
    static let document = #"""
        {"openapi": "3.1.0", "paths": {
          "/api/meals": {"get": {}, "post": {}},
          "/api/meals/{id}": {"parameters": [], "get": {}, "put": {}, "delete": {}},
          "/api/meals/{id}/consume": {"post": {}, "delete": {}},
          "/api/foods/barcode/{code}": {"get": {}},
          "/api/foods/{id}": {"get": {}}
        }}
        """#

    let methods = try! DeclaredMethods(openAPIDocument: Array(Self.document.utf8))

    @Test(
        "a known path answers its methods; an unknown one none",
        arguments: [
            ("/api/meals", ["GET", "POST"]),
            ("/api/meals/", ["GET", "POST"]),
            ("/api/meals/6f1c2a1e-0000-4000-8000-000000000001", ["DELETE", "GET", "PUT"]),
            ("/api/meals/x/consume", ["DELETE", "POST"]),
            ("/api/foods/barcode/0036000291452", ["GET"]),
            ("/api/foods/01009", ["GET"]),
            ("/api/meals/x/consume/again", nil),
            ("/api/unknown", nil),
            ("/", nil),
        ] as [(String, [String]?)])
    func lookup(path: String, expected: [String]?) {
        #expect(methods.methods(for: path[...])?.map(\.rawValue) == expected, "\(path)")
    }

    @Test("an undeclared method on a known path is 405 with Allow; a declared one, or an unknown path, passes")
    func refusals() throws {
        let refusal = try #require(methods.refusal(of: .patch, on: "/api/meals/abc"))
        #expect(refusal.status == .methodNotAllowed && refusal.code == "method_not_allowed")
        #expect(refusal.headers[.allow] == "DELETE, GET, PUT")
        #expect(methods.refusal(of: .put, on: "/api/meals/abc") == nil)
        #expect(methods.refusal(of: .patch, on: "/api/unknown") == nil)
        #expect(DeclaredMethods.none.refusal(of: .patch, on: "/api/meals") == nil)
    }

    @Test("the shipped document declares every path the gateway's routes serve, with at least one method")
    func shippedDocument() throws {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../gateway/Resources/openapi.json")
        let shipped = try DeclaredMethods(openAPIDocument: Array(try Data(contentsOf: url)))
        #expect(shipped.methods(for: "/api/meals/00000000-0000-4000-8000-000000000000")?.contains(.put) == true)
        #expect(shipped.refusal(of: .patch, on: "/api/user/stats")?.headers[.allow] == "GET")
    }
}

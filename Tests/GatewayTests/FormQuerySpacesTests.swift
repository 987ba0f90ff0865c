import Testing

@testable import Gateway

/// `FormQuerySpaces`: a query's `+` is a space (form encoding, as browsers' `URLSearchParams` and Python's requests
/// write it), which the services' router would read as a plus.
@Suite("Spaces written as + in a query")
struct FormQuerySpacesTests {
    @Test(
        "a query's + becomes %20; its %2B, the path's + and a target without + are kept",
        arguments: [
            ("/api/foods/search?q=apple+pie&limit=1", "/api/foods/search?q=apple%20pie&limit=1"),
            ("/api/foods/search?q=1%2B1", "/api/foods/search?q=1%2B1"),
            ("/api/foods/barcode/0360+0029?x=a+b", "/api/foods/barcode/0360+0029?x=a%20b"),
            ("/api/foods/barcode/0360+0029", "/api/foods/barcode/0360+0029"),
            ("/api/meals?cursor=abc", "/api/meals?cursor=abc"),
            ("/?++", "/?%20%20"),
        ])
    func decoded(target: String, expected: String) {
        #expect(FormQuerySpaces.decoded(target) == expected)
    }
}

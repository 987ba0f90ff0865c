import Testing

@testable import FoodData

/// Barcodes as the catalog keys them. The codes are published examples whose check digits were computed apart
/// (GS1's mod-10 rule) and UPC-E expansions from the published zero-suppression table.
@Suite("Barcodes (GTIN)")
struct GTINTests {
    @Test("every printed form of one product is one GTIN-14")
    func forms() throws {
        let upcA = "036000291452"
        #expect(try GTIN.readings(of: upcA).get().map(\.digits) == ["00036000291452"])
        #expect(try GTIN.readings(of: "0" + upcA).get().map(\.digits) == ["00036000291452"], "as EAN-13")
        #expect(try GTIN.readings(of: "00" + upcA).get().map(\.digits) == ["00036000291452"], "as GTIN-14")
        #expect(try GTIN.readings(of: "0 36000 29145 2").get().map(\.digits) == ["00036000291452"], "with spaces")
        #expect(try GTIN.readings(of: "4006381333931").get().map(\.digits) == ["04006381333931"])
        #expect(try GTIN.readings(of: "10036000291459").get().map(\.digits) == ["10036000291459"], "a case of the product")
        #expect(try GTIN.readings(of: "96385074").get().map(\.digits) == ["00000096385074"], "EAN-8")
    }

    @Test("a UPC-E code is expanded by its last data digit, and finds its UPC-A")
    func upcE() throws {
        #expect(GTIN.expandUPCE("04252614") == "042100005264")
        #expect(GTIN.expandUPCE("01234565") == "012345000065")
        #expect(GTIN.expandUPCE("06543217") == "065100004327")
        #expect(GTIN.expandUPCE("00123457") == "001234000057")
        #expect(GTIN.expandUPCE("00123334") == "001200000334")
        #expect(GTIN.expandUPCE("00123443") == "001230000043")
        #expect(GTIN.expandUPCE("21234565") == nil, "number system 2 is not UPC-E")
        let readings = try GTIN.readings(of: "04252614").get()
        #expect(readings.contains(GTIN("042100005264")!))
        #expect(GTIN("042100005264")?.digits == "00042100005264")
    }

    @Test("bad codes name their problem")
    func problems() {
        #expect(GTIN.readings(of: "036000291453") == .failure(.checkDigit(expected: 2, found: 3)))
        #expect(GTIN.readings(of: "") == .failure(.empty))
        #expect(GTIN.readings(of: " - ") == .failure(.empty))
        #expect(GTIN.readings(of: "03600029145x") == .failure(.notDigits))
        #expect(GTIN.readings(of: "٠٣٦٠٠٠٢٩١٤٥٢") == .failure(.notDigits), "Arabic-Indic digits are not barcode digits")
        #expect(GTIN.readings(of: "1234567") == .failure(.unsupportedLength(7)))
        #expect(GTIN.readings(of: "96385075") == .failure(.checkDigit(expected: 4, found: 5)))
        #expect(GTIN("036000291453") == nil)
        for problem in [BarcodeProblem.empty, .notDigits, .unsupportedLength(7), .checkDigit(expected: 2, found: 3)] {
            #expect(!problem.description.isEmpty)
        }
    }

    @Test("the check digit of any body: changing one digit changes it")
    func checkDigits() {
        #expect(GTIN.checkDigit(of: "03600029145") == 2)
        #expect(GTIN.checkDigit(of: "400638133393") == 1)
        #expect(GTIN.checkDigit(of: "1003600029145") == 9)
        #expect(GTIN.checkDigit(of: "9638507") == 4)
        let body = "40063813339"
        for index in body.indices {
            let digit = body[index].wholeNumberValue!
            var changed = body
            changed.replaceSubrange(index...index, with: String((digit + 1) % 10))
            #expect(GTIN.checkDigit(of: changed) != GTIN.checkDigit(of: body), "a single changed digit is caught: \(changed)")
        }
    }
}

import MultipartKit
import NIOCore
import ServiceDefaults
import TestSupport
import Testing

@testable import MealsService

/// `MultipartHeaderGuard`: what MultipartKit's parser would trap on is refused, whatever the chunks; everything else
/// passes and parses as before.
@Suite("Multipart header guard")
struct MultipartHeaderGuardTests {
    static let boundary = "8361095ea36643991b77265195c1f2ce"

    /// A form with a UTF-8 file name in a header value and an image whose bytes cover 0 to 255.
    static let validBody: [UInt8] = {
        var body = Array("--\(boundary)\r\nContent-Disposition: form-data; name=\"text\"\r\n\r\n2 eggs\r\n".utf8)
        body += Array("--\(boundary)\r\nContent-Disposition: form-data; name=\"image\"; filename=\"café.jpg\"\r\n".utf8)
        body += Array("Content-Type: image/jpeg\r\n\r\n".utf8)
        body += [0xFF, 0xD8, 0xFF, 0xE0] + (0...255).map { UInt8($0) } + Array("\r\n--\(boundary)--\r\n".utf8)
        return body
    }()

    /// Whether the guard accepts `body` sent as chunks cut at `cuts`.
    static func accepts(_ body: [UInt8], cutAt cuts: [Int], boundary: String = boundary) -> Bool {
        var headerGuard = MultipartHeaderGuard(boundary: boundary)
        var start = 0
        for end in cuts + [body.count] where end >= start {
            guard headerGuard.accepts(body[start..<end]) else { return false }
            start = end
        }
        return true
    }

    /// The `image` part's bytes as MultipartKit reads `body`, or nil when it refuses it.
    static func parsedImage(_ body: [UInt8], boundary: String = boundary) -> [UInt8]? {
        let form = MultipartFormCollector(maxFileBytes: 1 << 20, maxFieldBytes: 1 << 10)
        let parser = MultipartParser(boundary: boundary)
        parser.onHeader = { name, value in form.header(name: name, value: value) }
        parser.onBody = { buffer in form.body(&buffer) }
        parser.onPartComplete = { form.partComplete() }
        do { try parser.execute(body) } catch { return nil }
        return form.file
    }

    @Test("the body the fuzzer found (a header name with UTF-8 bytes) is refused, in one chunk or cut anywhere")
    func fuzzerFinding() {
        let body: [UInt8] =
            Array("--\(Self.boundary)\r\nM".utf8) + [0xC2, 0x8A, 0xC2, 0xA7, 0xC2, 0xAC, 0xC3, 0x83, 0xC2, 0x83, 0x7C, 0xF1, 0x9E, 0x9A, 0xA3]
            + Array("--\(Self.boundary)--\r\n".utf8)
        for cut in 0...body.count { #expect(!Self.accepts(body, cutAt: [cut]), "cut at \(cut)") }
    }

    @Test("a valid form passes whatever the chunks, with non-ASCII bytes in header values and the image, and parses whole")
    func validFormPasses() {
        for cut in 0...Self.validBody.count {
            #expect(Self.accepts(Self.validBody, cutAt: [cut]), "cut at \(cut)")
        }
        #expect(Self.accepts(Self.validBody, cutAt: Array(stride(from: 1, to: Self.validBody.count, by: 1))), "one byte at a time")
        #expect(Self.parsedImage(Self.validBody) == [0xFF, 0xD8, 0xFF, 0xE0] + (0...255).map { UInt8($0) })
    }

    @Test("a bad header name in a later part is refused; so is one after a boundary that repeats its own start")
    func laterPartsAndSelfOverlappingBoundaries() {
        let late =
            Self.validBody.dropLast(Array("--\(Self.boundary)--\r\n".utf8).count)
            + Array("--\(Self.boundary)\r\nX-Caf".utf8) + [0xC3, 0xA9] + Array(": 1\r\n\r\nbody\r\n--\(Self.boundary)--\r\n".utf8)
        #expect(!Self.accepts(Array(late), cutAt: []))
        let odd = "--a--a"
        let body = Array("---\(odd)\r\nN".utf8) + [0x80] + Array(": v\r\n\r\nx\r\n--\(odd)--\r\n".utf8)
        #expect(!Self.accepts(body, cutAt: [], boundary: odd))
    }

    @Test(
        "random damage to a valid form: whatever the guard lets through, MultipartKit reads without trapping",
        arguments: TestSeeds.list(default: [21]))
    func randomDamageNeverReachesTheTrap(seed: UInt64) {
        var generator = SplitMix64(seed: seed)
        var refused = 0
        for _ in 0..<3_000 {
            var body = Self.validBody
            for _ in 0..<Int.random(in: 1...4, using: &generator) {
                body[Int.random(in: 0..<body.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
            }
            let cut = Int.random(in: 0...body.count, using: &generator)
            if Self.accepts(body, cutAt: [cut]) {
                _ = Self.parsedImage(body)  // a trap here ends the test run
            } else {
                refused += 1
            }
        }
        #expect(refused > 0, "seed \(seed): some damage lands in a header name and is refused")
    }

    @Test("a form's known fields are read (kind, barcode and tags too); a part of another name is named, not skipped silently")
    func formFields() {
        var body: [UInt8] = []
        for (name, value) in [("kind", "label"), ("barcode", "4006381333931"), ("tags", "a,b"), ("mealtype", "lunch")] {
            body += Array("--\(Self.boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"\r\n\r\n\(value)\r\n".utf8)
        }
        body += Array("--\(Self.boundary)--\r\n".utf8)
        let form = MultipartFormCollector(maxFileBytes: 1 << 20, maxFieldBytes: 1 << 10)
        let parser = MultipartParser(boundary: Self.boundary)
        parser.onHeader = { name, value in form.header(name: name, value: value) }
        parser.onBody = { buffer in form.body(&buffer) }
        parser.onPartComplete = { form.partComplete() }
        #expect(throws: Never.self) { try parser.execute(body) }
        #expect(form.fields == ["kind": "label", "barcode": "4006381333931", "tags": "a,b"])
        #expect(form.unknownParts == ["mealtype"])
        let refusal = APIError.unknownFields(form.unknownParts, known: MultipartFormCollector.fieldNames.union(["image"]))
        #expect(refusal.code == "unknown_field" && refusal.details == ["mealtype": #"is not a known field; did you mean "mealType"?"#])
    }
}

import Testing

@testable import MealsService

@Suite("Recognising photo formats by their bytes")
struct ImageFormatTests {
    private static func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    /// An ISO-BMFF file start: box size, "ftyp", the major brand, then padding.
    private static func isoFile(brand: String) -> [UInt8] {
        [0x00, 0x00, 0x00, 0x18] + bytes("ftyp") + bytes(brand) + [0x00, 0x00, 0x00, 0x00] + bytes("mif1heic")
    }

    @Test("JPEG, PNG, WebP and HEIC signatures are recognised")
    func recognised() {
        #expect(ImageFormat(detecting: [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10] + Self.bytes("JFIF")) == .jpeg)
        #expect(ImageFormat(detecting: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x00, 0x00, 0x0D]) == .png)
        #expect(ImageFormat(detecting: Self.bytes("RIFF") + [0x24, 0x10, 0x00, 0x00] + Self.bytes("WEBPVP8 ")) == .webp)
        #expect(ImageFormat(detecting: Self.isoFile(brand: "heic")) == .heic)
        #expect(ImageFormat(detecting: Self.isoFile(brand: "mif1")) == .heic)
        #expect(ImageFormat(detecting: Self.isoFile(brand: "heix")) == .heic)
    }

    @Test("media types match the formats")
    func mediaTypes() {
        #expect(ImageFormat.jpeg.mediaType == "image/jpeg")
        #expect(ImageFormat.png.mediaType == "image/png")
        #expect(ImageFormat.webp.mediaType == "image/webp")
        #expect(ImageFormat.heic.mediaType == "image/heic")
    }

    /// Files that are not photos the analyser accepts, by what they are.
    private static let notPhotos: [(kind: String, data: [UInt8])] = {
        let riffHeader: [UInt8] = bytes("RIFF") + [0x24, 0x10, 0x00, 0x00]
        let shortFtyp: [UInt8] = [0x00, 0x00, 0x00, 0x18] + bytes("ftyphe")
        let lateSignature: [UInt8] = [0x00, 0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        var files: [(kind: String, data: [UInt8])] = []
        files.append(("GIF", bytes("GIF89a") + [0x01, 0x00, 0x01, 0x00]))
        files.append(("PDF", bytes("%PDF-1.7\n%âãÏÓ")))
        files.append(("text", bytes("a photo of my lunch")))
        files.append(("empty", []))
        files.append(("PNG signature one byte late", lateSignature))
        files.append(("truncated JPEG", [0xFF, 0xD8]))
        files.append(("RIFF WAVE audio", riffHeader + bytes("WAVEfmt ")))
        files.append(("MP4 video", isoFile(brand: "isom")))
        files.append(("ftyp too short for a brand", shortFtyp))
        return files
    }()

    @Test("other files are rejected", arguments: notPhotos)
    func rejected(kind: String, data: [UInt8]) {
        #expect(ImageFormat(detecting: data) == nil, "\(kind)")
    }

    @Test("a form of no fields is its close delimiter, then at most a line break")
    func emptyForm() {
        let close = Array("--abc--".utf8)
        #expect(AnalysisRequestReader.isEmptyForm(close, closeDelimiter: close))
        #expect(AnalysisRequestReader.isEmptyForm(Array("--abc--\r\n".utf8), closeDelimiter: close))
        #expect(!AnalysisRequestReader.isEmptyForm(Array("--abc--x".utf8), closeDelimiter: close))
        #expect(!AnalysisRequestReader.isEmptyForm(Array("--abc\r\n".utf8), closeDelimiter: close))
        #expect(!AnalysisRequestReader.isEmptyForm([], closeDelimiter: close))
    }

    @Test("the multipart boundary is read quoted or not")
    func boundary() {
        #expect(AnalysisRequestReader.boundary(in: "multipart/form-data; boundary=abc123") == "abc123")
        #expect(AnalysisRequestReader.boundary(in: "multipart/form-data; boundary=\"----WebKit 7MA4\"") == "----WebKit 7MA4")
        #expect(AnalysisRequestReader.boundary(in: "multipart/form-data;boundary=x=y") == "x=y")
        #expect(AnalysisRequestReader.boundary(in: "multipart/form-data; charset=utf-8; Boundary=xyz") == "xyz")
    }

    @Test("a missing or empty boundary is nil")
    func missingBoundary() {
        #expect(AnalysisRequestReader.boundary(in: "multipart/form-data") == nil)
        #expect(AnalysisRequestReader.boundary(in: "multipart/form-data; charset=utf-8") == nil)
        #expect(AnalysisRequestReader.boundary(in: "multipart/form-data; boundary=") == nil)
        #expect(AnalysisRequestReader.boundary(in: "multipart/form-data; boundary=\"\"") == nil)
        #expect(AnalysisRequestReader.boundary(in: "") == nil)
        let tooLong = String(repeating: "b", count: 201)
        #expect(AnalysisRequestReader.boundary(in: "multipart/form-data; boundary=\(tooLong)") == nil)
    }
}

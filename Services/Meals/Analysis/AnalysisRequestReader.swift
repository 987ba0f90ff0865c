import Foundation
import Hummingbird
import MultipartKit
import ServiceDefaults

/// Reads `POST /api/analyze` bodies: `multipart/form-data` (an `image` file part and text fields) parsed as
/// it streams in, so only the image itself is held (never the whole body twice), or JSON with a base64
/// `image` (optionally a `data:` URL) or a `text`, or the photo alone as the body (`image/*` or
/// `application/octet-stream`, the other fields in the query). Photos are recognised by their bytes; 413 beyond
/// `maxImageBytes`, 415 for another body type or an image that is not JPEG, PNG, WebP or HEIC.
struct AnalysisRequestReader: Sendable {
    let maxImageBytes: Int
    /// Room for the text fields and multipart framing beside the image.
    static let fieldAllowance = 64 * 1024

    func read(_ request: Request, context: AppRequestContext) async throws -> AnalysisInput {
        let contentType = request.headers[.contentType]?.lowercased() ?? ""
        let isJSON = contentType.hasPrefix("application/json")
        if let declared = request.headers[.contentLength].flatMap(Int.init), declared > maxBodyBytes(json: isJSON) {
            throw tooLarge
        }
        var input: AnalysisInput
        if contentType.hasPrefix("multipart/form-data") {
            input = try await readMultipart(request, contentType: request.headers[.contentType] ?? "")
        } else if isJSON {
            input = try await readJSON(request)
        } else if contentType.hasPrefix("image/") || contentType.hasPrefix("application/octet-stream") {
            input = try await readRaw(request)
        } else {
            throw APIError(
                .unsupportedMediaType, code: "unsupported_media_type",
                message:
                    "Send multipart/form-data with an image part, or application/json with image (base64) or text; a photo alone may also be sent as image/*."
            )
        }
        if let photo = input.photo?.bytes {
            guard photo.count <= maxImageBytes else { throw tooLarge }
            guard let format = ImageFormat(detecting: photo) else { throw unsupportedImage }
            input.photo?.format = format
        }
        return input
    }

    /// Reads the photo of `PUT /api/meals/:id/photo`: the image itself as the body (`image/*` or
    /// `application/octet-stream`), a multipart `image` part, or JSON with a base64 `image`; recognised by its bytes,
    /// with the limits of analysis. 422 when no photo was sent.
    func photo(_ request: Request, context: AppRequestContext) async throws -> PhotoUpload {
        let contentType = request.headers[.contentType]?.lowercased() ?? ""
        guard contentType.hasPrefix("image/") || contentType.hasPrefix("application/octet-stream") else {
            guard let photo = try await read(request, context: context).photo else {
                throw APIError.invalid(["image": "Send a JPEG, PNG, WebP or HEIC photo."])
            }
            return photo
        }
        let declared = request.headers[.contentLength].flatMap(Int.init)
        if let declared, declared > maxImageBytes { throw tooLarge }
        let bytes = try await collectBytes(request, upTo: maxImageBytes, expecting: declared)
        guard !bytes.isEmpty else { throw APIError.invalid(["image": "Send a JPEG, PNG, WebP or HEIC photo."]) }
        guard let format = ImageFormat(detecting: bytes) else { throw unsupportedImage }
        return PhotoUpload(bytes: bytes, format: format)
    }

    private var unsupportedImage: APIError {
        APIError(.unsupportedMediaType, code: "unsupported_image_type", message: "Send a JPEG, PNG, WebP or HEIC photo.")
    }

    private var tooLarge: APIError {
        APIError(.contentTooLarge, code: "payload_too_large", message: "The photo is larger than \(maxImageBytes / (1024 * 1024)) MB.")
    }

    private func maxBodyBytes(json: Bool) -> Int {
        (json ? (maxImageBytes + 2) / 3 * 4 : maxImageBytes) + Self.fieldAllowance
    }

    private func readJSON(_ request: Request) async throws -> AnalysisInput {
        let body = try await collect(request, upTo: maxBodyBytes(json: true))
        let decoded = try StrictJSONDecoder.decode(AnalyzeJSONRequest.self, from: Data(buffer: body))
        var input = AnalysisInput(
            kind: decoded.kind, barcode: decoded.barcode, text: decoded.text, hint: decoded.hint, mealType: decoded.mealType,
            captureKind: decoded.captureKind, eatenAt: decoded.eatenAt,
            tags: decoded.tags)
        if var encoded = decoded.image {
            if encoded.hasPrefix("data:"), let comma = encoded.firstIndex(of: ",") { encoded = String(encoded[encoded.index(after: comma)...]) }
            // Standard base64 with its padding, nothing else in it (no line breaks): what the API document's pattern says.
            guard let bytes = Data(base64Encoded: encoded) else {
                throw APIError.invalid(["image": "must be base64 with its padding, without line breaks (or a base64 data: URL)"])
            }
            input.photo = PhotoUpload(bytes: Array(bytes), format: .jpeg)
        }
        return input
    }

    private func readMultipart(_ request: Request, contentType: String) async throws -> AnalysisInput {
        guard let boundary = Self.boundary(in: contentType) else {
            throw APIError.badRequest("The multipart body has no boundary.", code: "malformed_body")
        }
        let form = MultipartFormCollector(
            maxFileBytes: maxImageBytes, maxFieldBytes: Self.fieldAllowance, declaredBodyBytes: request.headers[.contentLength].flatMap(Int.init))
        let parser = MultipartParser(boundary: boundary)
        parser.onHeader = { name, value in form.header(name: name, value: value) }
        parser.onBody = { buffer in form.body(&buffer) }
        parser.onPartComplete = { form.partComplete() }
        var headerGuard = MultipartHeaderGuard(boundary: boundary)
        let malformed = APIError.badRequest("The multipart body could not be read.", code: "malformed_body")
        // A form of no fields is its close delimiter alone, which MultipartKit refuses (RFC 2046 wants one part); it is
        // read as an empty form, so that its answer names the missing fields as any other form's does.
        let closeDelimiter = Array("--\(boundary)--".utf8)
        var head: [UInt8] = []
        var unreadable = false
        var received = 0
        for try await chunk in request.body {
            received += chunk.readableBytes
            guard received <= maxBodyBytes(json: false), !form.fileTooLarge else { throw tooLarge }
            if head.count <= closeDelimiter.count + 4 { head += chunk.readableBytesView.prefix(closeDelimiter.count + 5 - head.count) }
            guard headerGuard.accepts(chunk) else { throw malformed }
            if !unreadable {
                do { try parser.execute(chunk) } catch { unreadable = true }
            }
        }
        if unreadable {
            guard received == head.count, Self.isEmptyForm(head, closeDelimiter: closeDelimiter) else { throw malformed }
            return AnalysisInput()
        }
        guard !form.fileTooLarge else { throw tooLarge }
        if !form.unknownParts.isEmpty {
            throw APIError.unknownFields(form.unknownParts, known: MultipartFormCollector.fieldNames.union(["image"]))
        }
        return AnalysisInput(
            kind: form.fields["kind"], barcode: form.fields["barcode"], photo: form.file.map { PhotoUpload(bytes: $0, format: .jpeg) },
            text: form.fields["text"], hint: form.fields["hint"],
            mealType: form.fields["mealType"], captureKind: form.fields["captureKind"], eatenAt: form.fields["eatenAt"],
            tags: form.fields["tags"].map { $0.split(separator: ",").map(String.init) })
    }

    /// The photo as the whole body, the other fields from the query (`?kind=label&hint=...`).
    private func readRaw(_ request: Request) async throws -> AnalysisInput {
        let declared = request.headers[.contentLength].flatMap(Int.init)
        let bytes = try await collectBytes(request, upTo: maxImageBytes, expecting: declared)
        let query = request.uri.queryParameters
        func field(_ name: String) -> String? { query[name[...]].map(String.init) }
        return AnalysisInput(
            kind: field("kind"), barcode: field("barcode"), photo: bytes.isEmpty ? nil : PhotoUpload(bytes: bytes, format: .jpeg),
            hint: field("hint"), mealType: field("mealType"), captureKind: field("captureKind"), eatenAt: field("eatenAt"),
            tags: field("tags").map { $0.split(separator: ",").map(String.init) })
    }

    private func collect(_ request: Request, upTo limit: Int) async throws -> ByteBuffer {
        do {
            return try await request.body.collect(upTo: limit)
        } catch {
            throw tooLarge
        }
    }

    /// The body as bytes, read straight into one array of the declared length: no buffer that grows by doubling and no
    /// second copy, so a photo costs its own size in memory while it is read.
    private func collectBytes(_ request: Request, upTo limit: Int, expecting declared: Int?) async throws -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(min(declared ?? 0, limit))
        for try await chunk in request.body {
            guard bytes.count + chunk.readableBytes <= limit else { throw tooLarge }
            bytes.append(contentsOf: chunk.readableBytesView)
        }
        return bytes
    }

    /// Whether a body (its first bytes, `head`) is a form of no fields: the close delimiter, then at most a line break.
    static func isEmptyForm(_ head: [UInt8], closeDelimiter: [UInt8]) -> Bool {
        guard head.starts(with: closeDelimiter) else { return false }
        return head.dropFirst(closeDelimiter.count).allSatisfy { $0 == UInt8(ascii: "\r") || $0 == UInt8(ascii: "\n") }
    }

    /// The `boundary` parameter of a multipart content type, quoted or not.
    static func boundary(in contentType: String) -> String? {
        for parameter in contentType.split(separator: ";").dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            if pair.count == 2, pair[0].lowercased() == "boundary" {
                let value = pair[1].trimmingCharacters(in: CharacterSet(charactersIn: "\""))
                return value.isEmpty || value.count > 200 ? nil : value
            }
        }
        return nil
    }
}

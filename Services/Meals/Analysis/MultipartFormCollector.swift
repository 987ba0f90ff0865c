import NIOCore

/// Collects a streamed `multipart/form-data` body: the bytes of the `image` part (stopping at `maxFileBytes`)
/// and the small text fields of `AnalysisInput` (each at most `maxFieldBytes`); the names of other parts are kept in
/// `unknownParts` (their bytes are skipped), so the request can be refused as a misspelt JSON body is. The image is
/// read into one array of the body's declared length when there is one, so it is never copied to a larger one as it
/// grows.
final class MultipartFormCollector {
    private let maxFileBytes: Int
    private let maxFieldBytes: Int
    /// Room kept for the image when its part starts: the declared body length (within the limit), else 1 MiB.
    private let expectedFileBytes: Int
    private var partName: String?
    private var partBytes: [UInt8] = []
    private(set) var file: [UInt8]?
    private(set) var fields: [String: String] = [:]
    /// The names of parts that are neither the image nor a known field, in the order sent.
    private(set) var unknownParts: [String] = []
    private(set) var fileTooLarge = false

    /// The text fields a form may hold beside `image`.
    static let fieldNames: Set<String> = ["kind", "barcode", "text", "hint", "mealType", "captureKind", "eatenAt", "tags"]

    init(maxFileBytes: Int, maxFieldBytes: Int, declaredBodyBytes: Int? = nil) {
        self.maxFileBytes = maxFileBytes
        self.maxFieldBytes = maxFieldBytes
        self.expectedFileBytes = min(maxFileBytes, declaredBodyBytes ?? (1 << 20))
    }

    /// A part header; only `Content-Disposition`'s `name` matters.
    func header(name: String, value: String) {
        guard name.lowercased() == "content-disposition" else { return }
        for parameter in value.split(separator: ";") {
            let pair = parameter.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            if pair.count == 2, pair[0].lowercased() == "name" { partName = pair[1].trimmingCharacters(in: .init(charactersIn: "\"")) }
        }
    }

    /// Some bytes of the current part.
    func body(_ buffer: inout ByteBuffer) {
        let limit = partName == "image" ? maxFileBytes : maxFieldBytes
        guard let partName, partName == "image" || Self.fieldNames.contains(partName), !fileTooLarge else { return }
        if partBytes.count + buffer.readableBytes > limit {
            fileTooLarge = true
            return
        }
        if partBytes.isEmpty && partName == "image" { partBytes.reserveCapacity(expectedFileBytes) }
        partBytes.append(contentsOf: buffer.readableBytesView)
    }

    /// The end of a part.
    func partComplete() {
        if let partName {
            if partName == "image" {
                file = partBytes
            } else if Self.fieldNames.contains(partName) {
                fields[partName] = String(decoding: partBytes, as: UTF8.self)
            } else {
                unknownParts.append(partName)
            }
        }
        partName = nil
        partBytes = []
    }
}

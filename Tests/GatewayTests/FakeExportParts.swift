import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import ServiceDefaults
import Synchronization

/// Every service's export part as one fake upstream: `GET /api/export/<part>` answers the JSON `{"<part>Rows": [..]}`,
/// the CSV file list `["<part>_rows"]` and a two-line CSV file, as the services do. Parts in `failing` answer 500;
/// parts in `cutting` send the first chunk of their rows and then fail, as a service whose database goes away mid-stream;
/// parts in `failingFiles` list their CSV files but answer 500 for each file.
final class FakeExportParts: Sendable {
    struct PartBroken: Error {}

    let failing: Set<String>
    let cutting: Set<String>
    let failingFiles: Set<String>
    private let received = Mutex<[(path: String, userId: String?)]>([])

    init(failing: Set<String> = [], cutting: Set<String> = [], failingFiles: Set<String> = []) {
        self.failing = failing
        self.cutting = cutting
        self.failingFiles = failingFiles
    }

    /// The path and query and the `X-User-Id` of every request received so far.
    var requests: [(path: String, userId: String?)] { received.withLock { $0 } }

    /// The fake as an application on a free port.
    func application() -> some ApplicationProtocol {
        let router = Router()
        router.get("/api/export/:part") { request, context -> Response in
            let part = try context.parameters.require("part")
            self.received.withLock { $0.append((request.uri.description, request.headers[CallerIdentity.userIdHeader])) }
            if self.failing.contains(part) {
                return ErrorBody(code: "internal_error", message: "broken", requestId: "x").response(status: .internalServerError)
            }
            let parameters = request.uri.queryParameters
            if self.failingFiles.contains(part), parameters.get("table") != nil {
                return ErrorBody(code: "internal_error", message: "broken", requestId: "x").response(status: .internalServerError)
            }
            let answer: (body: String, contentType: String)
            switch (parameters.get("format"), parameters.get("table")) {
            case ("csv", nil):
                answer = (#"{"part":"\#(part)","tables":["\#(part)_rows"]}"#, "application/json")
            case ("csv", let table?):
                answer = ("name\r\n\(table) 1\r\n", "text/csv")
            default:
                answer = (#"{"\#(part)Rows":[{"n":1},{"n":2}]}"#, "application/json")
            }
            let (body, contentType) = answer
            // The file list is answered whole: a part that breaks mid-stream breaks while sending rows.
            let cut = self.cutting.contains(part) && !(parameters.get("format") == "csv" && parameters.get("table") == nil)
            return Response(
                status: .ok, headers: [.contentType: contentType],
                body: ResponseBody { writer in
                    let bytes = ByteBuffer(string: body)
                    try await writer.write(bytes.getSlice(at: 0, length: bytes.readableBytes / 2)!)
                    if cut { throw PartBroken() }
                    try await writer.write(bytes.getSlice(at: bytes.readableBytes / 2, length: bytes.readableBytes - bytes.readableBytes / 2)!)
                    try await writer.finish(nil)
                })
        }
        return Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
    }
}

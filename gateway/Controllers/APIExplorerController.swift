import Foundation
import Hummingbird
import NIOCore
import ServiceDefaults

/// `GET /docs`: an API explorer (Swagger UI) of the OpenAPI document the gateway serves at `/openapi.json`, so that
/// an app developer can read and try every operation in a browser. Swagger UI's files come from a package installed
/// beside the gateway (`GATEWAY_DOCS_DIRECTORY`: the `static` folder of PyPI's swagger-ui-py, whose Swagger UI 5
/// reads OpenAPI 3.1), loaded once at start; nothing is fetched from a CDN. The page and its start script are the
/// gateway's own, so the explorer opens this document and no other; its answers forbid scripts from anywhere else.
/// Without the files `/docs` answers 404 `not_found`, saying why.
struct APIExplorerController: Sendable {
    /// The files of Swagger UI the page loads, by name, and their media types.
    static let assets: [String: String] = [
        "swagger-ui.css": "text/css; charset=utf-8", "swagger-ui-bundle.js": "text/javascript; charset=utf-8",
        "favicon-32x32.png": "image/png", "favicon-16x16.png": "image/png",
    ]

    /// A file served as loaded at start.
    struct File: Sendable {
        var mediaType: String
        var bytes: ByteBuffer
        var etag: String

        init(mediaType: String, bytes: [UInt8]) {
            self.mediaType = mediaType
            self.bytes = ByteBuffer(bytes: bytes)
            self.etag = ContentETag.of(bytes)
        }
    }

    /// The loaded files by name (the page and its start script included); empty when Swagger UI is not installed.
    let files: [String: File]

    /// No explorer: `/docs` answers 404.
    static let notInstalled = APIExplorerController(files: [:])

    private init(files: [String: File]) {
        self.files = files
    }

    /// The explorer over the Swagger UI files in `directory`; throws when a file is missing or unreadable (a start
    /// with a wrong `GATEWAY_DOCS_DIRECTORY` fails, instead of serving a broken page). Nil `directory`: no explorer.
    init(directory: URL?) throws {
        guard let directory else {
            files = [:]
            return
        }
        var files: [String: File] = [:]
        for (name, mediaType) in Self.assets {
            let url = directory.appendingPathComponent(name)
            guard let bytes = try? Data(contentsOf: url) else {
                throw ConfigurationError.invalid(
                    "GATEWAY_DOCS_DIRECTORY", reason: "\(url.path) cannot be read (install: deploy/setup.sh api_explorer)")
            }
            files[name] = File(mediaType: mediaType, bytes: Array(bytes))
        }
        files["index.html"] = File(mediaType: "text/html; charset=utf-8", bytes: Array(Self.page.utf8))
        files["start.js"] = File(mediaType: "text/javascript; charset=utf-8", bytes: Array(Self.start.utf8))
        self.files = files
    }

    func addRoutes<Context: RequestContext>(to router: Router<Context>) {
        router.get("/docs") { request, _ in try answer("index.html", request) }
        router.get("/docs/:file") { request, context in try answer(context.parameters.get("file") ?? "", request) }
    }

    func answer(_ name: String, _ request: Request) throws -> Response {
        guard let file = files[name] else {
            throw APIError(
                .notFound, code: "not_found",
                message: files.isEmpty ? "This gateway has no API explorer installed (GATEWAY_DOCS_DIRECTORY)." : "No such file of the API explorer.")
        }
        var headers: HTTPFields = [
            .eTag: file.etag, .cacheControl: "public, max-age=300",
            .contentSecurityPolicy: "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; frame-ancestors 'none'",
            .xContentTypeOptions: "nosniff",
        ]
        if request.hasCurrentCopy(etag: file.etag) { return Response(status: .notModified, headers: headers) }
        headers[.contentType] = file.mediaType
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: file.bytes))
    }

    private static let page = """
        <!DOCTYPE html>
        <html lang="en">
        <head>
          <meta charset="utf-8">
          <title>NutritionAI API</title>
          <link rel="stylesheet" href="/docs/swagger-ui.css">
          <link rel="icon" type="image/png" href="/docs/favicon-32x32.png" sizes="32x32">
        </head>
        <body>
          <div id="swagger-ui"></div>
          <script src="/docs/swagger-ui-bundle.js"></script>
          <script src="/docs/start.js"></script>
        </body>
        </html>

        """

    private static let start = """
        window.ui = SwaggerUIBundle({ url: "/openapi.json", dom_id: "#swagger-ui", deepLinking: true });

        """
}

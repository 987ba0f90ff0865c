import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import PostgresSupport
import ServiceDefaults

/// Safe replays of writes: a signed-in caller's `POST`, `PUT`, `PATCH` or `DELETE` carrying `Idempotency-Key` runs
/// once. The same key with the same request answers the first answer again, marked `Idempotent-Replayed: true`; with
/// another method, path or body 422 `idempotency_key_reused`; while the first is still running 409
/// `idempotency_request_in_flight`. Only successful (2xx) answers are kept: a failed request frees its key, so a retry
/// runs again. Keys are per user and kept for the configured retention (`Migration.idempotencyKeys`).
///
/// Left open: a process that dies after its request committed but before the answer was stored leaves the key
/// claimed for `lease`; a retry after that runs the request again. Clients that cannot accept that choose the
/// entity's id themselves (`PUT /api/meals/:id`), which is idempotent by itself.
public struct IdempotencyMiddleware: RouterMiddleware {
    public typealias Context = AppRequestContext

    public static let keyHeader = HTTPField.Name("Idempotency-Key")!
    public static let replayedHeader = HTTPField.Name("Idempotent-Replayed")!
    /// The answer headers a replay repeats.
    static let keptHeaders: [HTTPField.Name] = [.contentType, .eTag, .location]
    /// Answers larger than this are answered but not kept (the key is freed).
    static let maxStoredBodyBytes = 1 << 20

    let keys: IdempotencyKeys
    let maxRequestBytes: Int

    /// - Parameters:
    ///   - lease: how long a running request holds its key before a retry may take it over (longer than any request).
    ///   - maxRequestBytes: the largest body the service accepts on any route (the body is read to fingerprint it).
    public init(client: PostgresPool, lease: Duration = .seconds(60), maxRequestBytes: Int) {
        self.keys = IdempotencyKeys(client: client, lease: lease)
        self.maxRequestBytes = maxRequestBytes
    }

    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let key = request.headers[Self.keyHeader], [.post, .put, .patch, .delete].contains(request.method),
            let userId = request.headers[CallerIdentity.userIdHeader].flatMap(UUID.init(uuidString:))
        else { return try await next(request, context) }
        guard (1...255).contains(key.utf8.count), key.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else {
            throw APIError.badRequest(
                "Idempotency-Key must be 1 to 255 visible ASCII characters; a UUID made by the client is best.",
                code: "invalid_idempotency_key")
        }
        var request = request
        let body = try await request.collectBody(upTo: maxRequestBytes)
        let fingerprint = Self.fingerprint(request, body: body)

        switch try await keys.claim(key: key, userId: userId, fingerprint: fingerprint, logger: context.logger) {
        case .claimed:
            break
        case .reusedWithOtherRequest:
            throw APIError(
                .unprocessableContent, code: "idempotency_key_reused",
                message: "This Idempotency-Key was used for a different request; use a new key for a new request.")
        case .inFlight:
            throw APIError(
                .conflict, code: "idempotency_request_in_flight",
                message: "The first request with this Idempotency-Key is still running; retry shortly.", headers: [.retryAfter: "1"])
        case .completed(let stored):
            return Self.replay(stored)
        }

        let response: Response
        do {
            response = try await next(request, context)
        } catch {
            await release(key: key, userId: userId, logger: context.logger)
            throw error
        }
        guard (200..<300).contains(response.status.code) else {
            await release(key: key, userId: userId, logger: context.logger)
            return response
        }
        let collector = BodyCollector(limit: Self.maxStoredBodyBytes)
        let headers = response.headers
        try await response.body.write(collector)
        let answered = collector.buffer
        var kept = Response(status: response.status, headers: headers, body: .init(byteBuffer: answered))
        kept.headers[Self.replayedHeader] = "false"
        guard !collector.overflowed else {
            await release(key: key, userId: userId, logger: context.logger)
            return kept
        }
        var storedHeaders: [String: String] = [:]
        for name in Self.keptHeaders { if let value = headers[name] { storedHeaders[name.canonicalName] = value } }
        do {
            try await keys.complete(
                key: key, userId: userId,
                response: .init(status: Int(response.status.code), headers: storedHeaders, body: answered), logger: context.logger)
        } catch {
            // The write is done; only its replay is lost. The key stays claimed until its lease ends.
            context.logger.warning(
                "idempotent answer not stored", metadata: ["error": .string(LogSafeError.describe(error))])
        }
        return kept
    }

    /// SHA-256 of the method, the path with its query and the body. A multipart body's boundary (chosen anew by the
    /// client's library on every send) is left out, so a replayed upload matches its first send.
    static func fingerprint(_ request: Request, body: ByteBuffer) -> [UInt8] {
        var hasher = SHA256()
        hasher.update(data: Array("\(request.method.rawValue) \(request.uri.path)?\(request.uri.query ?? "")\n".utf8))
        var bytes = Array(body.readableBytesView)
        if let contentType = request.headers[.contentType], contentType.lowercased().hasPrefix("multipart/"),
            let boundary = contentType.split(separator: ";").lazy.map({ $0.trimmingCharacters(in: .whitespaces) })
                .first(where: { $0.lowercased().hasPrefix("boundary=") })?.dropFirst("boundary=".count)
                .trimmingCharacters(in: CharacterSet(charactersIn: "\"")),
            !boundary.isEmpty
        {
            bytes = Self.removing(Array(boundary.utf8), from: bytes)
        }
        hasher.update(data: bytes)
        return Array(hasher.finalize())
    }

    /// `bytes` without any occurrence of `pattern`.
    static func removing(_ pattern: [UInt8], from bytes: [UInt8]) -> [UInt8] {
        guard !pattern.isEmpty, bytes.count >= pattern.count else { return bytes }
        var result: [UInt8] = []
        result.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            if bytes[index] == pattern[0], index + pattern.count <= bytes.count, bytes[index..<index + pattern.count].elementsEqual(pattern) {
                index += pattern.count
            } else {
                result.append(bytes[index])
                index += 1
            }
        }
        return result
    }

    /// The stored answer again.
    static func replay(_ stored: IdempotencyKeys.StoredResponse) -> Response {
        var headers = HTTPFields()
        for (name, value) in stored.headers { if let field = HTTPField.Name(name) { headers[field] = value } }
        headers[replayedHeader] = "true"
        return Response(status: .init(code: stored.status), headers: headers, body: .init(byteBuffer: stored.body))
    }

    private func release(key: String, userId: UUID, logger: Logger) async {
        do {
            try await keys.release(key: key, userId: userId, logger: logger)
        } catch {
            logger.warning(
                "idempotency key not freed; it frees itself when its lease ends", metadata: ["error": .string(LogSafeError.describe(error))])
        }
    }
}

import Foundation
import HTTPTypes
import Hummingbird
import Logging

extension HTTPField.Name {
    /// `X-Request-Id`, the correlation id carried across every hop.
    public static let requestId = HTTPField.Name("X-Request-Id")!
}

/// Adopts the caller's `X-Request-Id` (when it is a sane token) or creates one, puts it on every log line
/// of the request and on the response, and logs one line when the request completes, at `accessLogLevel`.
public struct RequestIdMiddleware<Context: ServiceRequestContext>: RouterMiddleware {
    let accessLogLevel: Logger.Level

    /// Completed requests are logged at `accessLogLevel` (by default the process's `ACCESS_LOG_LEVEL`).
    public init(accessLogLevel: Logger.Level = AccessLog.level) {
        self.accessLogLevel = accessLogLevel
    }

    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        let requestId = Self.acceptable(request.headers[.requestId]) ?? RandomRequestId.make()
        context.requestId = requestId
        context.logger[metadataKey: "request_id"] = .string(requestId)
        context.logger[metadataKey: "hb.request.id"] = nil
        let started = ContinuousClock.now
        var response = try await next(request, context)
        response.headers[.requestId] = requestId
        AccessLog.record(
            on: context.logger, level: accessLogLevel, method: request.method, path: Substring(request.uri.path), status: response.status,
            since: started)
        return response
    }

    /// Accepts 1-128 characters of letters, digits, `-`, `_`, `.` and `:`; anything else is replaced.
    public static func acceptable(_ value: String?) -> String? {
        guard let value, (1...128).contains(value.utf8.count) else { return nil }
        let allowed = value.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || byte == 0x2D || byte == 0x5F || byte == 0x2E || byte == 0x3A
        }
        return allowed ? value : nil
    }
}

import Hummingbird
import Logging

/// Turns every error a handler throws into the one error shape: `APIError` as given, Hummingbird's own
/// errors by their status, a dependency that is down for the moment into 503 `service_unavailable`, anything else
/// into a logged 500 that reveals nothing of its cause.
public struct ErrorMiddleware<Context: ServiceRequestContext>: RouterMiddleware {
    public init() {}

    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as APIError {
            return Self.response(for: error, context: context)
        } catch let error as HTTPResponseError {
            let status = error.status
            if status.code >= 500 {
                context.logger.error("request failed", metadata: ["error": "\(String(reflecting: type(of: error)))"])
            }
            return ErrorBody(code: Self.code(for: status), message: Self.message(for: status), requestId: context.requestId)
                .response(status: status)
        } catch let error as any TemporaryDependencyFailure where error.isTemporary {
            context.logger.warning("dependency unavailable", metadata: ["error.type": "\(String(reflecting: type(of: error)))"])
            let unavailable = APIError.unavailable(
                "A service this request needs is briefly unavailable; try again shortly.", retryAfterSeconds: 2)
            return Self.response(for: unavailable, context: context)
        } catch {
            // Only the type: descriptions of database and library errors can carry SQL or user data.
            context.logger.error("unhandled error", metadata: ["error.type": "\(String(reflecting: type(of: error)))"])
            return ErrorBody(code: "internal_error", message: "Something went wrong on our side.", requestId: context.requestId)
                .response(status: .internalServerError)
        }
    }

    /// An `APIError` as the one error shape, with its status and headers.
    static func response(for error: APIError, context: Context) -> Response {
        ErrorBody(code: error.code, message: error.message, details: error.details, requestId: context.requestId)
            .response(status: error.status, headers: error.headers)
    }

    /// The stable code for a framework-raised status.
    static func code(for status: HTTPResponse.Status) -> String {
        switch status {
        case .badRequest: "bad_request"
        case .unauthorized: "unauthenticated"
        case .forbidden: "forbidden"
        case .notFound: "not_found"
        case .methodNotAllowed: "method_not_allowed"
        case .contentTooLarge: "payload_too_large"
        case .unsupportedMediaType: "unsupported_media_type"
        case .unprocessableContent: "validation_failed"
        case .tooManyRequests: "rate_limited"
        case .serviceUnavailable: "service_unavailable"
        default: status.code >= 500 ? "internal_error" : "request_failed"
        }
    }

    /// A sentence for a framework-raised status; never the underlying error's text, which may describe internals.
    static func message(for status: HTTPResponse.Status) -> String {
        switch status {
        case .badRequest: "The request body or parameters could not be read."
        case .notFound: "No such resource."
        case .methodNotAllowed: "This method is not allowed here."
        case .contentTooLarge: "The request body is too large."
        case .unsupportedMediaType: "This content type is not supported here."
        default: status.code >= 500 ? "Something went wrong on our side." : status.reasonPhrase
        }
    }
}

import HTTPTypes

/// An error a handler throws on purpose; the error middleware renders it in the one error shape.
public struct APIError: Error, Sendable {
    public var status: HTTPResponse.Status
    /// Stable snake_case code clients can branch on.
    public var code: String
    /// A sentence for people; never internals.
    public var message: String
    /// Structured context, such as the invalid fields.
    public var details: [String: String]
    /// Extra response headers, such as `Retry-After`.
    public var headers: HTTPFields

    public init(
        _ status: HTTPResponse.Status, code: String, message: String, details: [String: String] = [:],
        headers: HTTPFields = [:]
    ) {
        self.status = status
        self.code = code
        self.message = message
        self.details = details
        self.headers = headers
    }

    /// 400: the request could not be read.
    public static func badRequest(_ message: String, code: String = "bad_request") -> APIError {
        APIError(.badRequest, code: code, message: message)
    }

    /// 404: the resource does not exist or belongs to someone else.
    public static func notFound(_ message: String = "No such resource.") -> APIError {
        APIError(.notFound, code: "not_found", message: message)
    }

    /// 422: the request was readable but values are invalid; `fields` maps each field to what is wrong.
    public static func invalid(_ fields: [String: String]) -> APIError {
        APIError(.unprocessableContent, code: "validation_failed", message: "Some values are invalid.", details: fields)
    }

    /// 503: a dependency is down; the client may retry after `retryAfterSeconds`.
    public static func unavailable(_ message: String, retryAfterSeconds: Int = 5) -> APIError {
        APIError(
            .serviceUnavailable, code: "service_unavailable", message: message,
            headers: [.retryAfter: String(retryAfterSeconds)])
    }
}

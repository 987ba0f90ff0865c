import Hummingbird

extension HTTPResponse.Status {
    /// The status `ErrorMiddleware` answers `error` with: an `APIError`'s or a framework error's own status, 503 for a
    /// dependency that is briefly away, 500 for anything else. The request metrics count errors by this status, so
    /// what they report is what the client was told.
    public init(answering error: any Error) {
        switch error {
        case let error as APIError: self = error.status
        case let error as any HTTPResponseError: self = error.status
        case let error as any TemporaryDependencyFailure where error.isTemporary: self = .serviceUnavailable
        default: self = .internalServerError
        }
    }
}

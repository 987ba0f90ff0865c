/// An error from a dependency (the database) saying that it cannot be reached for the moment, not that the request
/// is wrong: `ErrorMiddleware` answers 503 `service_unavailable` with `Retry-After` for it instead of 500.
/// For a write this is as unclear as any 5xx (the connection may have dropped after the commit); clients read back.
public protocol TemporaryDependencyFailure: Error {
    var isTemporary: Bool { get }
}

import AccessTokens
import AsyncHTTPClient
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import NIOHTTP1
import NIOPosix
import ServiceDefaults

/// How the gateway talks to an upstream service, for the proxy and for the routes the gateway composes itself
/// (`/api/sync/...`): one client span per call, the headers only the gateway sets, a safe request sent once more when
/// the upstream closed its connection unanswered, and failures mapped to 502, 503 or 504 in the one error shape.
struct UpstreamClient: Sendable {
    typealias Context = GatewayRequestContext
    let client: HTTPClient
    /// Time allowed for an upstream's whole answer.
    let timeout: Duration

    /// Sends `request` to the upstream named `upstream` inside a client span (`GET meals`); any failure to get an
    /// answer is thrown as the `APIError` the client sees (see `gatewayError`).
    func send(_ request: HTTPClientRequest, upstream: String, context: Context) async throws -> HTTPClientResponse {
        do {
            return try await HTTPClientSpan.send(request, name: "\(request.method.rawValue) \(upstream)", client: client) {
                try await execute($0, context: context)
            }
        } catch {
            throw Self.gatewayError(for: error, upstream: upstream, context: context)
        }
    }

    private func execute(_ request: HTTPClientRequest, context: Context) async throws -> HTTPClientResponse {
        let deadline = NIODeadline.now() + .init(timeout)
        do {
            return try await client.execute(request, deadline: deadline, logger: context.logger)
        } catch  where [.GET, .HEAD, .OPTIONS].contains(request.method) && Self.connectionClosedBeforeAnswer(error) {
            context.logger.debug("upstream closed the connection before answering; sending the safe request again")
            return try await client.execute(request, deadline: deadline, logger: context.logger)
        }
    }

    /// Sets the headers only the gateway may set on a request to an upstream: the request id, the client's address,
    /// the verified caller (`X-User-Id`, `X-Session-Id`) or on a public route the problem of its token, and the
    /// scheme the client used. Client copies of the identity headers must have been left out before.
    static func setGatewayHeaders(on headers: inout HTTPHeaders, for request: Request, context: Context) {
        setGatewayHeaders(
            on: &headers, requestId: context.requestId, clientAddress: context.clientAddress, caller: context.caller,
            tokenProblem: context.tokenProblem, scheme: request.uri.scheme?.rawValue ?? "http")
    }

    /// The same for a request known by its parts (the pass-through's, which has no router context).
    static func setGatewayHeaders(
        on headers: inout HTTPHeaders, requestId: String, clientAddress: String, caller: VerifiedAccessToken?, tokenProblem: String?,
        scheme: String
    ) {
        headers.replaceOrAdd(name: "X-Request-Id", value: requestId)
        headers.replaceOrAdd(name: CallerIdentity.clientAddressHeader.rawName, value: clientAddress)
        if let caller {
            headers.replaceOrAdd(name: CallerIdentity.userIdHeader.rawName, value: caller.userIdText)
            headers.replaceOrAdd(name: CallerIdentity.sessionIdHeader.rawName, value: caller.sessionIdText)
        } else if let tokenProblem {
            headers.replaceOrAdd(name: CallerIdentity.tokenProblemHeader.rawName, value: tokenProblem)
        }
        headers.replaceOrAdd(name: "X-Forwarded-Proto", value: scheme)
    }

    /// The connection ended (closed, reset or broken pipe) with no answer read from it.
    private static func connectionClosedBeforeAnswer(_ error: any Error) -> Bool {
        if let error = error as? HTTPClientError, error == .remoteConnectionClosed { return true }
        if let error = error as? ChannelError, error == .ioOnClosedChannel || error == .eof { return true }
        if let code = (error as? IOError)?.errnoCode, code == ECONNRESET || code == EPIPE { return true }
        return false
    }

    /// 504 when the upstream took too long, 503 when it could not be reached, 502 for anything else it did wrong.
    static func gatewayError(for error: any Error, upstream: String, context: Context) -> APIError {
        if let error = error as? APIError { return error }
        context.logger.warning("upstream request failed", metadata: ["upstream": .string(upstream), "error": "\(error)"])
        if let error = error as? HTTPClientError {
            switch error {
            case .deadlineExceeded, .readTimeout, .writeTimeout:
                return timedOut(upstream)
            case .connectTimeout, .getConnectionFromPoolTimeout:
                return unavailable(upstream)
            default: break
            }
        }
        if error is NIOConnectionError || (error as? IOError)?.errnoCode == ECONNREFUSED {
            return unavailable(upstream)
        }
        return failed(upstream)
    }

    /// 504 `upstream_timeout`: the upstream did not answer within the gateway's time.
    static func timedOut(_ upstream: String) -> APIError {
        APIError(.gatewayTimeout, code: "upstream_timeout", message: "The \(upstream) service did not answer in time.")
    }

    /// 502 `bad_gateway`: the upstream answered wrongly or not at all.
    static func failed(_ upstream: String) -> APIError {
        APIError(.badGateway, code: "bad_gateway", message: "The \(upstream) service failed to answer.")
    }

    /// 503 `upstream_unavailable` with `Retry-After`.
    static func unavailable(_ upstream: String) -> APIError {
        APIError(
            .serviceUnavailable, code: "upstream_unavailable", message: "The \(upstream) service is unavailable; try again shortly.",
            headers: [.retryAfter: "2"])
    }
}

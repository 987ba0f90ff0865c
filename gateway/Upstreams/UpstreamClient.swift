import AccessTokens
import AsyncHTTPClient
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import NIOHTTP1
import NIOPosix
import ServiceDefaults

/// How the routes the gateway composes itself (`/api/sync/...`, `/api/export`) call the upstream services: an address
/// chosen by the upstream's balancer for each attempt, one client span per attempt, and failures mapped to 502, 503
/// or 504 in the one error shape (as the pass-through maps them).
/// An attempt whose connection could not be made goes to another address, whatever its method, each address at most
/// once; a safe request whose connection the upstream closed before answering is sent once more (RFC 9110 section
/// 9.2.2 allows retrying idempotent requests; AsyncHTTPClient does not).
struct UpstreamClient: Sendable {
    typealias Context = GatewayRequestContext
    let client: HTTPClient
    /// Time allowed for an upstream's whole answer, all attempts together.
    let timeout: Duration
    /// Each upstream's balancer, by name.
    let balancers: [String: UpstreamBalancer]

    /// Whether the upstream named `upstream` has addresses (the gateway's own routes have none).
    func serves(_ upstream: String) -> Bool { balancers[upstream] != nil }

    /// Sends `request`, whose `url` is a path and query (`/api/meals?limit=5`), to an address of the upstream named
    /// `upstream`, inside a client span per attempt (`GET meals`); any failure to get an answer is thrown as the
    /// `APIError` the client sees (see `gatewayError`).
    func send(_ request: HTTPClientRequest, upstream: String, context: Context) async throws -> HTTPClientResponse {
        guard let balancer = balancers[upstream] else {
            context.logger.error("no address for the upstream", metadata: ["upstream": .string(upstream)])
            throw Self.unavailable(upstream)
        }
        do {
            return try await execute(request, on: balancer, context: context)
        } catch {
            throw Self.gatewayError(for: error, upstream: upstream, context: context)
        }
    }

    private func execute(_ request: HTTPClientRequest, on balancer: UpstreamBalancer, context: Context) async throws -> HTTPClientResponse {
        let deadline = NIODeadline.now() + .init(timeout)
        var tried: [Int] = []
        var resent = false
        while true {
            guard let lease = balancer.lease(excluding: tried) else { throw UpstreamAddressesExhausted() }
            var attempt = request
            attempt.url = lease.endpoint.base + request.url
            do {
                let response = try await HTTPClientSpan.send(attempt, name: "\(request.method.rawValue) \(balancer.name)", client: client) {
                    try await client.execute($0, deadline: deadline, logger: context.logger)
                }
                lease.finish()
                return response
            } catch let error where Self.connectionNotMade(error) {
                // No connection, so the upstream never saw the request: any method, a write too, may go to another address.
                lease.finish(connectFailed: Self.addressFailed(error))
                tried.append(lease.index)
                guard tried.count < balancer.endpoints.count else { throw error }
                lease.countRetry(reason: .connect)
                context.logger.debug(
                    "could not connect to an upstream address; trying another",
                    metadata: ["upstream": .string(balancer.name), "address": .string(lease.endpoint.label)])
            } catch let error where [.GET, .HEAD, .OPTIONS].contains(request.method) && !resent && Self.connectionClosedBeforeAnswer(error) {
                lease.finish()
                resent = true
                lease.countRetry(reason: .closed)
                context.logger.debug("upstream closed the connection before answering; sending the safe request again")
            } catch {
                lease.finish()
                throw error
            }
        }
    }

    /// No connection to the address could be made (refused, or not accepted within the connect timeout), or none was free
    /// in time: nothing was sent.
    static func connectionNotMade(_ error: any Error) -> Bool {
        if let error = error as? HTTPClientError, error == .connectTimeout || error == .getConnectionFromPoolTimeout { return true }
        return addressFailed(error)
    }

    /// The address itself failed to accept a connection (not a pool of connections all busy).
    private static func addressFailed(_ error: any Error) -> Bool {
        if let error = error as? HTTPClientError { return error == .connectTimeout }
        if error is NIOConnectionError { return true }
        if case ChannelError.connectTimeout = error { return true }
        // Only a refusal is sure to come from connecting: an unreachable host or a timeout can also end a kept-alive
        // connection a request was already written to, and that request must not go to a second replica.
        return (error as? IOError)?.errnoCode == ECONNREFUSED
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
        if error is UpstreamAddressesExhausted || connectionNotMade(error) {
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
